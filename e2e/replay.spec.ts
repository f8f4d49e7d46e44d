import { type APIRequestContext, expect, test } from '@playwright/test';
import { postToolCall, unique } from './pages/api';
import { ComparePage, openTrace, recordChangingSession, SessionComparePage } from './pages/compare-page';
import { TracePage } from './pages/trace-page';

async function getTrace(request: APIRequestContext, id: string) {
  const response = await request.get(`/api/v1/traces/${id}`);
  expect(response.ok()).toBe(true);
  return (await response.json()) as {
    id: string;
    status: string;
    replay_of: string | null;
    replays: string[];
    served_from?: string | null;
    stdout: string | null;
    result: { output: unknown };
    attempts: unknown[];
  };
}

test('replay with edited arguments opens the compare view with the argument and output diff', async ({
  page,
  request,
}) => {
  const original = await postToolCall(request, {
    id: unique('call'),
    name: 'calculator',
    arguments: { expression: '2+2' },
    sessionId: unique('sess-edit'),
  });
  expect(original.output).toMatchObject({ result: 4 });

  await openTrace(page, original.traceId);
  await page.keyboard.press('e');
  const panel = page.getByTestId('replay-panel');
  await expect(panel).toBeVisible();
  const field = panel.locator('[data-field="expression"]');
  await expect(field).toHaveValue('2+2');
  await field.fill('6*7');
  await panel.getByTestId('replay-submit').click();

  await page.waitForURL(new RegExp(`/traces/${original.traceId}/compare/[^/]+$`));
  const replayId = page.url().split('/').pop() as string;
  const compare = new ComparePage(page);
  await expect(compare.view).toHaveAttribute('data-b', replayId);
  const changedArgument = compare.pathChange('arguments', 'expression');
  await expect(changedArgument).toHaveAttribute('data-kind', 'changed');
  await expect(changedArgument).toContainText('"2+2"');
  await expect(changedArgument).toContainText('"6*7"');
  const changedOutput = compare.pathChange('output', 'result');
  await expect(changedOutput).toHaveAttribute('data-kind', 'changed');
  await expect(changedOutput).toContainText('4');
  await expect(changedOutput).toContainText('42');
  await expect(compare.outputDiff.locator('[data-diff="removed"]', { hasText: '"result": 4' })).toBeVisible();
  await expect(compare.outputDiff.locator('[data-diff="added"]', { hasText: '"result": 42' })).toBeVisible();
  await expect(compare.verdict('arguments')).toHaveAttribute('data-changed', 'true');
  await expect(compare.verdict('output')).toHaveAttribute('data-changed', 'true');
  await expect(compare.verdict('outcome')).toHaveAttribute('data-changed', 'false');
  await expect(compare.summaryRow('actor')).toHaveAttribute('data-changed', 'true');

  // Side by side by default; `v` switches to unified, and the choice survives a reload.
  const lines = page.getByTestId('arguments-diff-lines');
  await expect(lines).toHaveAttribute('data-layout', 'split');
  await expect(compare.view).toHaveAttribute('data-ready', 'true');
  await page.keyboard.press('v');
  await expect(lines).toHaveAttribute('data-layout', 'unified');
  await page.reload();
  await expect(page.getByTestId('arguments-diff-lines')).toHaveAttribute('data-layout', 'unified');
  await page.getByTestId('layout-split').click();
  await expect(page.getByTestId('arguments-diff-lines')).toHaveAttribute('data-layout', 'split');

  // Lineage, both ways, each with its compare link.
  await page.getByTestId('compare-link-b').click();
  await expect(page.getByTestId('replay-of-link')).toHaveAttribute('href', `/traces/${original.traceId}`);
  await expect(page.getByTestId('replay-of-compare')).toHaveAttribute(
    'href',
    `/traces/${original.traceId}/compare/${replayId}`,
  );
  await openTrace(page, original.traceId);
  const item = page.locator(`[data-testid="replay-item"][data-trace-id="${replayId}"]`);
  await expect(item.getByTestId('replay-compare')).toHaveAttribute(
    'href',
    `/traces/${original.traceId}/compare/${replayId}`,
  );
  const stored = await getTrace(request, replayId);
  expect(stored.replay_of).toBe(original.traceId);
});

test('replay with edits keeps a masked secret as recorded, and no page shows it', async ({ page, request }) => {
  const secret = 'sk-live-e2e-0123456789abcdefghijklmn';
  const original = await postToolCall(request, {
    id: unique('call'),
    name: 'http_request',
    arguments: { url: 'http://127.0.0.1:9/first', headers: { Authorization: `Bearer ${secret}` } },
    sessionId: unique('sess-secret'),
  });
  await openTrace(page, original.traceId);
  await page.keyboard.press('e');
  const panel = page.getByTestId('replay-panel');
  await expect(panel.getByLabel('headers value 1')).toHaveValue('[REDACTED]');
  await expect(panel.getByTestId('kept-as-recorded')).toHaveCount(1);
  await expect(panel.getByTestId('replay-masked')).toContainText('headers.Authorization');
  await panel.locator('[data-field="url"]').fill('http://127.0.0.1:9/second');
  await panel.getByTestId('replay-submit').click();

  await page.waitForURL(new RegExp(`/traces/${original.traceId}/compare/[^/]+$`));
  const compare = new ComparePage(page);
  await expect(compare.pathChange('arguments', 'url')).toHaveAttribute('data-kind', 'changed');
  // The header was left masked: kept as recorded, so it did not change.
  await expect(compare.pathChange('arguments', 'headers.Authorization')).toHaveCount(0);
  expect(await page.content()).not.toContain(secret);
});

test('Replay (r) reruns the same arguments; a call that executes asks to confirm first', async ({ page, request }) => {
  const original = await postToolCall(request, {
    id: unique('call'),
    name: 'run_shell',
    arguments: { command: ['echo', 'same'] },
    sessionId: unique('sess-r'),
  });
  await openTrace(page, original.traceId);
  await page.keyboard.press('r');
  await expect(page.getByTestId('replay')).toHaveAttribute('data-armed', 'true');
  await page.keyboard.press('r');
  await page.waitForURL(new RegExp(`/traces/${original.traceId}/compare/[^/]+$`));
  const compare = new ComparePage(page);
  await expect(compare.verdict('arguments')).toHaveAttribute('data-changed', 'false');
  await expect(compare.verdict('output')).toHaveAttribute('data-changed', 'false');
  await expect(compare.outputDiff).toContainText('same');
  await expect(page.getByTestId('stdout-diff')).toContainText('The output above');
});

test('replay with a fault sends a one-off fault that shows on the replay only', async ({ page, request }) => {
  const original = await postToolCall(request, {
    id: unique('call'),
    name: 'calculator',
    arguments: { expression: '1+1' },
  });
  await openTrace(page, original.traceId);
  await page.getByTestId('replay-fault').click();
  const panel = page.getByTestId('replay-panel');
  // A parameter the server refuses is named on its field, and nothing is replayed.
  await panel.getByTestId('fault-kind').selectOption('fail_first');
  await panel.locator('[data-field="n"]').fill('0');
  await panel.getByTestId('replay-submit').click();
  await expect(panel.locator('[data-testid="form-field"][data-path="n"] [data-testid="form-issue"]')).toBeVisible();
  await expect(page.getByTestId('replay-error')).toContainText('fault.params.n');
  expect((await getTrace(request, original.traceId)).replays).toEqual([]);
  await panel.getByTestId('fault-kind').selectOption('error');
  await panel.locator('[data-field="code"]').fill('E2E_INJECTED');
  await panel.getByTestId('replay-submit').click();
  await page.waitForURL(new RegExp(`/traces/${original.traceId}/compare/[^/]+$`));
  const compare = new ComparePage(page);
  await expect(compare.verdict('outcome')).toHaveAttribute('data-changed', 'true');
  await expect(compare.summaryRow('error')).toContainText('E2E_INJECTED');
});

test('the compare view is live while the replay waits for approval, and updates when it is approved', async ({
  page,
  request,
}) => {
  const file = `${unique('replay-live')}.txt`;
  const original = await postToolCall(request, {
    id: unique('call_write'),
    name: 'write_file',
    arguments: { path: file, content: 'first' },
    wait: false,
  });
  expect(original.status).toBe('awaiting_approval');
  const approved = await request.post(`/api/v1/approvals/${original.traceId}`, { data: { decision: 'approve' } });
  expect(approved.status(), await approved.text()).toBe(200);
  await expect.poll(async () => (await getTrace(request, original.traceId)).status).toBe('succeeded');

  await openTrace(page, original.traceId);
  // write_file writes: Replay asks to confirm, then the replay waits for approval again.
  await page.getByTestId('replay').click();
  await expect(page.getByTestId('replay')).toHaveAttribute('data-armed', 'true');
  await page.getByTestId('replay').click();
  await page.waitForURL(new RegExp(`/traces/${original.traceId}/compare/[^/]+$`));
  const replayId = page.url().split('/').pop() as string;
  const compare = new ComparePage(page);
  await expect(page.getByTestId('compare-status-b')).toHaveAttribute('data-status', 'awaiting_approval');
  // A call awaiting approval has no outcome yet: pending, not "changed".
  await expect(compare.verdict('outcome')).toHaveAttribute('data-pending', 'true');

  const decided = await request.post(`/api/v1/approvals/${replayId}`, { data: { decision: 'approve' } });
  expect(decided.status(), await decided.text()).toBe(200);
  await expect(page.getByTestId('compare-status-b')).toHaveAttribute('data-status', 'succeeded');
  await expect(compare.verdict('outcome')).toHaveAttribute('data-changed', 'false');
});

test('a session replay shows which calls changed, each pair linked to its comparison', async ({ page, request }) => {
  const { session, clock } = await recordChangingSession(request);
  await openTrace(page, clock.traceId);
  const button = page.getByTestId('replay-session');
  await button.click();
  await expect(button).toHaveAttribute('data-armed', 'true');
  await button.click();
  await page.waitForURL(new RegExp(`/sessions/${session}/compare/[^/]+$`), { timeout: 20_000 });

  const compare = new SessionComparePage(page);
  await expect(compare.pairs).toHaveCount(3);
  await expect(compare.pair('calculator')).toHaveAttribute('data-changed', 'false');
  await expect(compare.pair('calculator').getByTestId('pair-output')).toHaveAttribute('data-changed', 'false');
  await expect(compare.pair('run_shell')).toHaveAttribute('data-changed', 'true');
  await expect(compare.pair('run_shell').getByTestId('pair-output')).toHaveAttribute('data-changed', 'true');
  await expect(compare.pair('read_file')).toHaveAttribute('data-changed', 'true');
  await expect(compare.counts).toContainText('2 changed');
  await page.keyboard.press('o');
  await expect(compare.pairs).toHaveCount(2);
  await page.keyboard.press('o');

  await compare.pair('read_file').getByTestId('pair-compare').click();
  const pair = new ComparePage(page);
  await expect(pair.view).toBeVisible();
  await expect(pair.outputDiff).toContainText('second version');
});

test('recording mode serves a call from the recorded session without running it', async ({ page, request }) => {
  const recorded = unique('sess-recorded');
  const first = await postToolCall(request, {
    id: unique('call'),
    name: 'run_shell',
    arguments: { command: ['date', '+%N'] },
    sessionId: recorded,
  });
  const recordedTrace = await getTrace(request, first.traceId);

  const response = await request.post('/api/v1/tool-calls', {
    data: {
      session_id: unique('sess-served'),
      replay_from: recorded,
      on_miss: 'fail',
      tool_calls: [
        {
          id: unique('call'),
          type: 'function',
          function: { name: 'run_shell', arguments: JSON.stringify({ command: ['date', '+%N'] }) },
        },
        {
          id: unique('call'),
          type: 'function',
          function: { name: 'calculator', arguments: JSON.stringify({ expression: '9*9' }) },
        },
      ],
    },
  });
  expect(response.ok()).toBe(true);
  const body = (await response.json()) as {
    results: { trace_id: string; status: string; error: { code: string } | null }[];
  };
  const [served, miss] = body.results;
  // Nanoseconds of the clock: a real run would print another number.
  const servedTrace = await getTrace(request, served!.trace_id);
  expect(servedTrace.served_from).toBe(first.traceId);
  expect(servedTrace.stdout).toBe(recordedTrace.stdout);
  expect(servedTrace.result.output).toEqual(recordedTrace.result.output);
  expect(miss!.status).toBe('failed');
  expect(miss!.error?.code).toBe('RECORDING_MISS');

  const trace = new TracePage(page);
  await trace.goto(served!.trace_id);
  await expect(page.getByTestId('served-from')).toContainText('Served from the recording of');
  await expect(page.getByTestId('served-from-link')).toHaveAttribute('href', `/traces/${first.traceId}`);
  await expect(page.getByTitle(`Served from the recording of ${first.traceId}: the tool did not run`)).toHaveText(
    'recorded',
  );
  await expect(page.getByText(`No attempt ran: served from the recording ${first.traceId}.`)).toBeVisible();
  await page.getByTestId('served-from-link').click();
  await expect(page.getByTestId('trace-view')).toHaveAttribute('data-trace-id', first.traceId);
});

test('at phone width the compare view and the trace with its replay actions fit: no sideways scroll', async ({
  browser,
  request,
}) => {
  const original = await postToolCall(request, {
    id: unique('call'),
    name: 'run_shell',
    arguments: {
      command: ['sh', '-c', 'echo "a fairly long line of output that has to wrap on a phone screen"; date +%N'],
    },
    sessionId: unique('sess-phone'),
  });
  const replay = await request.post(`/api/v1/traces/${original.traceId}/replay`, { data: {} });
  expect(replay.ok()).toBe(true);
  const replayId = ((await replay.json()) as { trace_id: string }).trace_id;
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  const fits = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  await new ComparePage(page).goto(original.traceId, replayId);
  await expect(page.getByTestId('stdout-diff')).toBeVisible();
  expect(await fits()).toBe(true);
  await new TracePage(page).goto(replayId);
  await expect(page.getByTestId('replay-of')).toBeVisible();
  expect(await fits()).toBe(true);
  await context.close();
});
