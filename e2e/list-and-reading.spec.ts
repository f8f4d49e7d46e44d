import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { postToolCall, unique } from './pages/api';
import { ShortcutsDialog } from './pages/shortcuts-dialog';
import { TracePage } from './pages/trace-page';
import { TracesPage } from './pages/traces-page';

test('a page link with a refused cursor shows the newest calls and says so, not an error page', async ({
  page,
  request,
}) => {
  await postToolCall(request, { id: unique('call_cur'), name: 'calculator', arguments: { expression: '1+1' } });
  const traces = new TracesPage(page);
  await traces.goto('?cursor=garbage');
  await expect(traces.invalidCursorNotice).toContainText('no longer valid');
  await expect(page.getByTestId('error-page')).toHaveCount(0);
  await expect(traces.rows.first()).toBeVisible();
  // the refused cursor leaves the address bar, so a reload is clean
  await expect(page).not.toHaveURL(/cursor=/);
});

test('at phone width the list fits: no sideways scroll, status, tool and whole error codes shown', async ({
  page,
  request,
}) => {
  const session = unique('sess-phone');
  const failed = await postToolCall(request, {
    id: unique('call_phone'),
    name: 'search_web',
    arguments: { query: 'a very long query that would push the table wider than a phone screen ever is' },
    sessionId: session,
  });
  const ok = await postToolCall(request, {
    id: unique('call_phone'),
    name: 'calculator',
    arguments: { expression: '6*7' },
    sessionId: session,
  });
  await page.setViewportSize({ width: 390, height: 844 });
  const traces = new TracesPage(page);
  await traces.goto(`?session=${session}`);
  await expect(traces.rows).toHaveCount(2);
  expect(await traces.horizontalOverflow()).toBeLessThanOrEqual(0);
  const row = traces.row(failed.traceId);
  await expect(row.getByRole('link', { name: /search_web/ })).toBeVisible();
  await expect(row.locator('[data-status]').first()).toBeVisible();
  const code = row.getByTestId('row-error-code');
  await expect(code).toHaveText('UNKNOWN_TOOL');
  const cut = await code.evaluate((el) => el.scrollWidth > el.clientWidth + 1);
  expect(cut).toBe(false);
  await expect(traces.row(ok.traceId).getByRole('link', { name: /calculator/ })).toBeVisible();
  // the table itself fits too: no column is pushed out of sight
  const tableOverflow = await page
    .getByTestId('traces-table')
    .evaluate((el) => el.scrollWidth - (el.parentElement?.clientWidth ?? el.scrollWidth));
  expect(tableOverflow).toBeLessThanOrEqual(1);
});

test('? opens the shortcuts dialog on the list and on a trace page; Esc closes it', async ({ page, request }) => {
  const call = await postToolCall(request, {
    id: unique('call_help'),
    name: 'calculator',
    arguments: { expression: '2' },
  });
  const traces = new TracesPage(page);
  await traces.goto();
  await traces.waitUntilLive();
  const help = new ShortcutsDialog(page);
  await help.openWithKey();
  await expect(help.dialog).toContainText('Open the selected call');
  await expect(help.dialog).toContainText('Older call');
  await help.closeWithEscape();

  await new TracePage(page).goto(call.traceId);
  await help.openWithKey();
  await help.closeWithEscape();
});

test('the list keeps its selection after opening a trace and coming back', async ({ page, request }) => {
  const session = unique('sess-keep');
  const ids: string[] = [];
  for (const expression of ['1', '2', '3']) {
    const call = await postToolCall(request, {
      id: unique('call_keep'),
      name: 'calculator',
      arguments: { expression },
      sessionId: session,
    });
    ids.push(call.traceId);
  }
  const traces = new TracesPage(page);
  await traces.goto(`?session=${session}`);
  await traces.waitUntilLive();
  await expect(traces.rows).toHaveCount(3);
  await page.locator('main').click({ position: { x: 2, y: 2 } });
  await page.keyboard.press('j');
  await page.keyboard.press('j');
  // newest first: the second row is the second-newest call
  const second = ids[1]!;
  await expect(traces.row(second)).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/traces/${second}$`));
  await page.goBack();
  await expect(traces.row(second)).toHaveAttribute('aria-selected', 'true');
  await expect(traces.row(second).locator('a[data-row-link]')).toBeFocused();
  await page.keyboard.press('j');
  await expect(traces.row(ids[0]!)).toHaveAttribute('aria-selected', 'true');
});

test('the arguments column tells calls of one tool apart, and a row menu copies and deletes', async ({
  page,
  request,
}) => {
  const session = unique('sess-args');
  const a = await postToolCall(request, {
    id: unique('call_args'),
    name: 'read_file',
    arguments: { path: 'first-file.txt' },
    sessionId: session,
  });
  const b = await postToolCall(request, {
    id: unique('call_args'),
    name: 'read_file',
    arguments: { path: 'second-file.txt' },
    sessionId: session,
  });
  const traces = new TracesPage(page);
  await traces.goto(`?session=${session}`);
  await traces.waitUntilLive();
  await expect(traces.row(a.traceId).getByTestId('row-arguments')).toContainText('first-file.txt');
  await expect(traces.row(b.traceId).getByTestId('row-arguments')).toContainText('second-file.txt');

  expect((await request.delete('/api/v1/traces/no-such-trace')).status()).toBe(404);
  const menu = await traces.openRowMenu(a.traceId);
  await menu.getByTestId('row-menu-delete').click();
  await page.getByTestId('row-menu-confirm-delete').click();
  await expect(traces.notice).toContainText('Deleted 1 call');
  await expect(traces.row(a.traceId)).toHaveCount(0);

  const sessionMenu = await traces.openRowMenu(b.traceId);
  await sessionMenu.getByTestId('row-menu-delete-session').click();
  await page.getByTestId('row-menu-confirm-delete').click();
  await expect(traces.notice).toContainText(`Deleted 1 call of session ${session}`);
  await expect(traces.rows).toHaveCount(0);
});

test('JSON strings are escaped and [REDACTED] inside them is marked; large text has find', async ({
  page,
  request,
}) => {
  const call = await postToolCall(request, {
    id: unique('call_esc'),
    name: 'read_file',
    arguments: { path: 'say "hi"\nAuthorization: Bearer abcdefghijklmnop.txt' },
  });
  const trace = new TracePage(page);
  await trace.goto(call.traceId);
  const value = trace.arguments.locator('[data-path="path"] [data-string]');
  await expect(value).toContainText('say \\"hi\\"\\nAuthorization:');
  await expect(value.getByTestId('redacted-mark')).toBeVisible();
  const model = await trace.openTab('model');
  const find = model.getByTestId('find-input');
  await find.fill('e');
  await expect(model.getByTestId('find-count')).toContainText('1 /');
  await find.press('Enter');
  await expect(model.getByTestId('find-count')).toContainText('2 /');
  await find.press('Shift+Enter');
  await expect(model.getByTestId('find-count')).toContainText('1 /');
  await expect(model.locator('[data-current-match]')).toHaveCount(1);

  const wrap = model.getByTestId('wrap-toggle');
  await expect(wrap).toHaveAttribute('aria-pressed', 'true');
  await wrap.click();
  await expect(wrap).toHaveAttribute('aria-pressed', 'false');
  const [download] = await Promise.all([page.waitForEvent('download'), model.getByTestId('download-text').click()]);
  expect(download.suggestedFilename()).toBe('model-message.txt');
});

test('times render identically on the server and in the browser, in the zone the header names', async ({
  page,
  request,
  context,
}) => {
  const session = unique('sess-tz');
  const call = await postToolCall(request, {
    id: unique('call_tz'),
    name: 'calculator',
    arguments: { expression: '3' },
    sessionId: session,
  });
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  await context.addCookies([
    { name: 'toolscope-tz', value: 'Asia/Kolkata', url: test.info().project.use.baseURL ?? 'http://127.0.0.1:3197' },
  ]);
  const traces = new TracesPage(page);
  await traces.goto(`?session=${session}`);
  await expect(page.getByTestId('time-zone-label')).toHaveText('UTC+05:30');
  const html = await (
    await request.get(`/?session=${session}`, { headers: { cookie: 'toolscope-tz=Asia/Kolkata' } })
  ).text();
  await traces.waitUntilLive();
  const shown = await traces.row(call.traceId).locator('time').first().textContent();
  expect(shown).toMatch(/\d\d:\d\d:\d\d\.\d{3}$/);
  // the server's HTML holds the very text the hydrated page shows: no jump
  expect(html).toContain(`>${shown}</time>`);
  expect(errors.filter((e) => /hydrat/i.test(e))).toEqual([]);

  await page.getByTestId('time-zone-label').click();
  await page.getByRole('menuitemradio', { name: /^UTC/ }).click();
  await expect(page.getByTestId('time-zone-label')).toHaveText('UTC');
  await page.reload();
  await expect(page.getByTestId('time-zone-label')).toHaveText('UTC');
});

test('what the model saw says how much of a cut output the model got', async ({ page, request }) => {
  const dataDir = process.env.E2E_DATA_DIR;
  test.skip(!dataDir, 'needs the data folder of the e2e server');
  const file = `cut-${unique('f')}.txt`;
  fs.mkdirSync(path.join(dataDir!, 'workspace'), { recursive: true });
  fs.writeFileSync(path.join(dataDir!, 'workspace', file), `${'y'.repeat(99)}\n`.repeat(2_000));
  const { traceId, status } = await postToolCall(request, {
    id: unique('call_cut'),
    name: 'read_file',
    arguments: { path: file, limit: 2_000 },
  });
  test.skip(status !== 'succeeded', `read_file did not succeed (${status})`);
  const trace = new TracePage(page);
  await trace.goto(traceId);
  await expect(page.getByTestId('result-tab-output')).toContainText('KiB');
  const model = await trace.openTab('model');
  await expect(model.getByTestId('model-truncation')).toContainText(
    /The model got the first [\d.]+k and the last [\d.]+k characters of [\d.]+k/,
  );
});

test('a running call is cancelled from its row menu and the row turns cancelled', async ({ page, request }) => {
  test.setTimeout(45_000);
  const session = unique('sess-row-cancel');
  const agent = request.post('/api/v1/tool-calls', {
    timeout: 40_000,
    data: {
      session_id: session,
      tool_calls: [
        {
          id: unique('call_sleep'),
          type: 'function',
          function: { name: 'run_shell', arguments: JSON.stringify({ command: ['sh', '-c', 'sleep 30'] }) },
        },
      ],
    },
  });
  const traces = new TracesPage(page);
  await traces.goto(`?session=${session}`);
  await traces.waitUntilLive();
  const row = traces.rows.first();
  await expect(row).toHaveAttribute('data-status', 'running');
  const traceId = (await row.getAttribute('data-trace-id'))!;
  const menu = await traces.openRowMenu(traceId);
  await menu.getByTestId('row-menu-cancel').click();
  await expect(traces.notice).toContainText('Cancel requested');
  await expect(traces.row(traceId)).toHaveAttribute('data-status', 'cancelled');
  const body = await (await agent).json();
  expect(body.results[0]).toMatchObject({ status: 'cancelled' });
});
