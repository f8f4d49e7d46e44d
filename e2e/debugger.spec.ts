import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { postToolCall, unique } from './pages/api';
import { ToolPage } from './pages/tool-page';
import { TracePage } from './pages/trace-page';
import { TracesPage } from './pages/traces-page';

const STAGES = ['parse', 'validate', 'permission', 'execute', 'normalize', 'trace'];

test('a playground run shows its trace with six stages and the result', async ({ page }) => {
  const tool = new ToolPage(page);
  await tool.goto('calculator');
  await tool.field('expression').fill('6*7');
  await tool.runAndWait();
  await expect(tool.result).toHaveAttribute('data-status', 'succeeded');
  await expect(tool.result).toContainText('42');

  await page.getByTestId('playground-trace-link').click();
  const trace = new TracePage(page);
  await expect(trace.status).toHaveAttribute('data-status', 'succeeded');
  await expect(trace.stages).toHaveCount(6);
  for (const name of STAGES) await expect(trace.stage(name)).toHaveAttribute('data-status', 'ok');
  const output = await trace.openTab('output');
  await expect(output).toContainText('42');
  const model = await trace.openTab('model');
  await expect(model).toContainText('42');
});

test('the playground form validates inline and stays in sync with raw JSON', async ({ page }) => {
  const tool = new ToolPage(page);
  await tool.goto('calculator');
  await tool.field('expression').fill('1+2');
  await page.getByTestId('mode-json').click();
  const json = page.getByTestId('playground-json');
  await expect(json).toHaveValue(/"expression": "1\+2"/);
  await json.fill('{"expression": ""}');
  await page.getByTestId('mode-form').click();
  await expect(tool.field('expression')).toHaveValue('');
  await expect(tool.field('expression')).toHaveAttribute('aria-invalid', 'true');
});

test('a side-effectful call from the playground waits for approval, and nothing runs', async ({ page }) => {
  const tool = new ToolPage(page);
  await tool.goto('write_file');
  await expect(page.getByTestId('policy-note')).toContainText(/approval/i);
  await tool.field('path').fill('notes/e2e-playground.txt');
  await tool.field('content').fill('hello');
  await tool.runAndWait();
  await expect(tool.result).toHaveAttribute('data-status', 'awaiting_approval');
  await expect(page.getByTestId('playground-pending')).toContainText(/waiting for approval/i);
  await expect(page.getByTestId('playground-approvals-link')).toHaveAttribute('href', '/approvals');
});

test('the playground approves or denies its own pending call inline, and the result follows the call', async ({
  page,
}) => {
  const tool = new ToolPage(page);
  await tool.goto('write_file');
  await tool.field('path').fill(`notes/${unique('inline-approve')}.txt`);
  await tool.field('content').fill('approved inline');
  await tool.runAndWait();
  await expect(tool.result).toHaveAttribute('data-status', 'awaiting_approval');
  await page.getByTestId('playground-approve').click();
  // No reload, no navigation: the same result box becomes the finished call.
  await expect(tool.result).toHaveAttribute('data-status', 'succeeded');
  await expect(page.getByTestId('playground-decision')).toHaveCount(0);

  await tool.field('path').fill(`notes/${unique('inline-deny')}.txt`);
  await tool.runAndWait();
  await expect(tool.result).toHaveAttribute('data-status', 'awaiting_approval');
  await page.getByTestId('playground-deny-reason').fill('not from a test');
  await page.getByTestId('playground-deny').click();
  await expect(tool.result).toHaveAttribute('data-status', 'denied');
  await expect(page.getByTestId('playground-error')).toContainText('not from a test');
});

test('a call with bad arguments shows the failing stage, the field and the model message', async ({
  page,
  request,
}) => {
  const { traceId } = await postToolCall(request, {
    id: unique('call_bad'),
    name: 'calculator',
    arguments: { expression: 5 },
  });
  const trace = new TracePage(page);
  await trace.goto(traceId);
  await expect(trace.status).toHaveAttribute('data-status', 'failed');
  await expect(trace.stage('parse')).toHaveAttribute('data-status', 'ok');
  await expect(trace.stage('validate')).toHaveAttribute('data-status', 'failed');
  await expect(trace.stage('execute')).toHaveAttribute('data-status', 'skipped');
  await expect(trace.invalidField('expression')).toBeVisible();
  await expect(trace.invalidField('expression')).toContainText(/string/i);
  await expect(page.getByTestId('error-code')).toHaveText('INVALID_ARGUMENTS');
  await expect(page.getByTestId('error-stage')).toHaveText('validate');
  const model = await trace.openTab('model');
  await expect(model).toContainText('INVALID_ARGUMENTS');
  await expect(model).toContainText('expression');
});

test('a call sent through the API while the list is open appears live', async ({ page, request }) => {
  const traces = new TracesPage(page);
  await traces.goto();
  await traces.waitUntilLive();
  const { traceId } = await postToolCall(request, {
    id: unique('call_live'),
    name: 'calculator',
    arguments: { expression: '1+1' },
  });
  await expect(traces.row(traceId)).toBeVisible({ timeout: 5_000 });
  await expect(traces.row(traceId)).toHaveAttribute('data-status', 'succeeded');
  await expect(traces.row(traceId)).toHaveAttribute('data-tool', 'calculator');
});

test('pausing stops live updates until resumed', async ({ page, request }) => {
  // A list of one session counts only that session's new calls, so "1 new" is this test's call.
  const session = unique('sess-pause');
  const traces = new TracesPage(page);
  await traces.goto(`?session=${session}`);
  await traces.waitUntilLive();
  await page.getByTestId('live-toggle').click();
  await expect(traces.liveIndicator).toHaveAttribute('data-state', 'paused');
  const { traceId } = await postToolCall(request, {
    id: unique('call_pause'),
    name: 'calculator',
    arguments: { expression: '3' },
    sessionId: session,
  });
  // The page has heard of the call (positive signal) and still does not show it.
  await expect(traces.liveIndicator).toContainText('Paused — 1 new');
  await expect(traces.row(traceId)).toHaveCount(0);
  await page.getByTestId('live-toggle').click();
  await expect(traces.row(traceId)).toBeVisible();
});

test('filters narrow the list and survive a reload', async ({ page, request }) => {
  const session = unique('sess-filter');
  const ok = await postToolCall(request, {
    id: unique('call_ok'),
    name: 'calculator',
    arguments: { expression: '2*3' },
    sessionId: session,
  });
  const bad = await postToolCall(request, {
    id: unique('call_unknown'),
    name: 'no_such_tool',
    arguments: {},
    sessionId: session,
  });
  const traces = new TracesPage(page);
  await traces.goto();
  await traces.filterBySession(session);
  await expect(traces.rows).toHaveCount(2);

  await traces.statusFilter.selectOption('failed');
  await expect(page).toHaveURL(/status=failed/);
  await expect(traces.rows).toHaveCount(1);
  await expect(traces.row(bad.traceId)).toBeVisible();
  await expect(traces.row(ok.traceId)).toHaveCount(0);

  await page.reload();
  await expect(traces.rows).toHaveCount(1);
  await expect(traces.row(bad.traceId)).toHaveAttribute('data-status', 'failed');
  await expect(traces.statusFilter).toHaveValue('failed');
  await expect(traces.sessionFilter).toHaveValue(session);

  await traces.textFilter.fill('2*3');
  await traces.statusFilter.selectOption('');
  await traces.textFilter.press('Enter');
  await expect(page).toHaveURL(/q=2/);
  await expect(traces.rows).toHaveCount(1);
  await expect(traces.row(ok.traceId)).toBeVisible();
});

test('keyboard: / focuses the search, j/k move, Enter opens a trace', async ({ page, request }) => {
  const session = unique('sess-keys');
  const first = await postToolCall(request, {
    id: unique('call_k1'),
    name: 'calculator',
    arguments: { expression: '1' },
    sessionId: session,
  });
  const second = await postToolCall(request, {
    id: unique('call_k2'),
    name: 'calculator',
    arguments: { expression: '2' },
    sessionId: session,
  });
  const traces = new TracesPage(page);
  await traces.goto(`?session=${session}`);
  await expect(traces.rows).toHaveCount(2);

  await page.locator('body').click({ position: { x: 5, y: 300 } });
  await page.keyboard.press('/');
  await expect(traces.textFilter).toBeFocused();
  await page.keyboard.press('Escape');

  await page.keyboard.press('j');
  await expect(traces.row(second.traceId)).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('j');
  await expect(traces.row(first.traceId)).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('k');
  await expect(traces.row(second.traceId)).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/traces/${second.traceId}$`));
  await expect(new TracePage(page).stages).toHaveCount(6);
});

test('a 1 MiB output renders capped, and in full on request', async ({ page, request }) => {
  const dataDir = process.env.E2E_DATA_DIR;
  test.skip(!dataDir, 'needs the data folder of the e2e server');
  const line = `${'x'.repeat(99)}\n`;
  const file = `big-${unique('f')}.txt`;
  fs.mkdirSync(path.join(dataDir!, 'workspace'), { recursive: true });
  fs.writeFileSync(path.join(dataDir!, 'workspace', file), line.repeat(10_000));
  const { traceId, status } = await postToolCall(request, {
    id: unique('call_big'),
    name: 'read_file',
    arguments: { path: file, limit: 10_000 },
  });
  test.skip(status !== 'succeeded', `read_file did not succeed (${status})`);
  const trace = new TracePage(page);
  const started = Date.now();
  await trace.goto(traceId);
  await expect(trace.stages).toHaveCount(6);
  expect(Date.now() - started).toBeLessThan(10_000);
  const model = await trace.openTab('model');
  await expect(model.getByTestId('truncation-marker')).toBeVisible();
  const output = await trace.openTab('output');
  const showAll = output.getByTestId('show-all');
  await expect(showAll).toBeVisible();
  await showAll.click();
  await expect(showAll).toHaveCount(0);
  await expect(output).toContainText('x'.repeat(99));
});

test('the theme toggle persists dark mode across reloads', async ({ page }) => {
  await page.goto('/');
  const toggle = page.getByTestId('theme-toggle');
  for (let i = 0; i < 3 && !(await page.locator('html.dark').count()); i++) await toggle.click();
  await expect(page.locator('html')).toHaveClass(/dark/);
  await page.reload();
  await expect(page.locator('html')).toHaveClass(/dark/);
  await expect(toggle).toContainText('Dark');
});

test('the tools catalog lists the built-in tools with their schema forms', async ({ page }) => {
  await page.goto('/tools');
  for (const name of ['calculator', 'read_file', 'write_file', 'run_shell']) {
    await expect(page.locator(`[data-testid="tool-row"][data-tool="${name}"]`)).toBeVisible();
  }
  await page.getByRole('link', { name: 'calculator', exact: true }).click();
  await expect(page.getByTestId('schema-json')).toContainText('"type": "function"');
  await page.getByTestId('schema-anthropic').click();
  await expect(page.getByTestId('schema-json')).toContainText('"input_schema"');
});
