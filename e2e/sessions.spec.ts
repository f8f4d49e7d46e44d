import fs from 'node:fs';
import path from 'node:path';
import { type APIRequestContext, expect, test } from '@playwright/test';
import { postToolCall, unique } from './pages/api';
import { createRule } from './pages/faults-page';
import { postBatch, SessionsPage, SessionViewPage } from './pages/sessions-page';

const SCREENS = process.env.SCREENS_DIR;

/**
 * An agent run with everything the session view draws: two calls of one request running at once,
 * a call retried after an injected failure, a write that waited for approval, and a loop of the
 * same failing calculator call.
 */
async function recordAgentRun(request: APIRequestContext) {
  const session = unique('sess-run');
  const rule = await createRule(request, {
    name: `flaky read ${session}`,
    tool: 'read_file',
    session_id: session,
    kind: 'fail_first',
    params: { n: 1 },
  });
  const parallel = await postBatch(request, {
    sessionId: session,
    calls: [
      { id: unique('call'), name: 'run_shell', arguments: { command: ['sh', '-c', 'sleep 0.4; echo one'] } },
      { id: unique('call'), name: 'run_shell', arguments: { command: ['sh', '-c', 'sleep 0.3; echo two'] } },
    ],
  });
  expect(parallel.map((r) => r.status)).toEqual(['succeeded', 'succeeded']);
  const dataDir = process.env.E2E_DATA_DIR;
  if (!dataDir) throw new Error('E2E_DATA_DIR is not set (global setup)');
  fs.mkdirSync(path.join(dataDir, 'workspace'), { recursive: true });
  fs.writeFileSync(path.join(dataDir, 'workspace', `${session}-notes.txt`), 'notes\n');
  const retried = await postToolCall(request, {
    id: unique('call'),
    name: 'read_file',
    arguments: { path: `${session}-notes.txt` },
    sessionId: session,
  });
  expect(retried.status).toBe('succeeded');
  // Only this call needed it; an active rule left behind would show in the nav of later tests.
  expect((await request.delete(`/api/v1/faults/${rule.id}`)).ok()).toBe(true);
  const waiting = await postToolCall(request, {
    id: unique('call'),
    name: 'write_file',
    arguments: { path: `${session}.txt`, content: 'hello' },
    sessionId: session,
    wait: false,
  });
  expect(waiting.status).toBe('awaiting_approval');
  await new Promise((resolve) => setTimeout(resolve, 400));
  const decided = await request.post(`/api/v1/approvals/${waiting.traceId}`, { data: { decision: 'approve' } });
  expect(decided.ok(), await decided.text()).toBe(true);
  // Approved, the write runs on: the session counts it running until it has finished.
  await expect
    .poll(
      async () =>
        ((await (await request.get(`/api/v1/traces/${waiting.traceId}`)).json()) as { status: string }).status,
    )
    .toBe('succeeded');
  const loop: string[] = [];
  for (const key of [
    { expression: '1/', precision: 4 },
    { precision: 4, expression: '1/' },
    { expression: '1/', precision: 4 },
  ]) {
    const call = await postToolCall(request, {
      id: unique('call'),
      name: 'calculator',
      arguments: key,
      sessionId: session,
    });
    expect(call.status).toBe('failed');
    loop.push(call.traceId);
  }
  return {
    session,
    parallel: parallel.map((r) => r.trace_id),
    retried: retried.traceId,
    waiting: waiting.traceId,
    loop,
  };
}

test('a session view shows parallel calls in separate lanes, the batch, the approval wait, the retry and the loop', async ({
  page,
  request,
}) => {
  const run = await recordAgentRun(request);
  const api = await request.get(`/api/v1/sessions/${run.session}`);
  expect(api.ok()).toBe(true);
  const json = await api.json();
  expect(json).toMatchObject({ id: run.session, failed: 3, denied: 0, running: 0, imported: false });
  expect(json.calls).toHaveLength(7);
  expect(json.findings).toEqual([
    { kind: 'repeated_call', tool: 'calculator', count: 3, trace_ids: run.loop },
    { kind: 'repeated_failure', tool: 'calculator', count: 3, trace_ids: run.loop },
  ]);
  expect(json.totals.approval_wait_ms).toBeGreaterThanOrEqual(300);

  const list = new SessionsPage(page);
  await list.goto();
  await list.row(run.session).getByRole('link').click();
  const view = new SessionViewPage(page);
  await expect(view.view).toHaveAttribute('data-session-id', run.session);
  await expect(view.bars).toHaveCount(7);

  // The two calls of one request ran at once: separate lanes, under one batch bracket.
  const lanes = await Promise.all(run.parallel.map((id) => view.bar(id).getAttribute('data-lane')));
  expect(new Set(lanes).size).toBe(2);
  expect(Number(await view.timeline.getAttribute('data-lanes'))).toBeGreaterThanOrEqual(2);
  const batchId = json.calls[0].batch_id;
  await expect(page.locator(`[data-testid="timeline-batch"][data-batch-id="${batchId}"]`)).toBeVisible();
  await expect(page.locator(`[data-testid="batch-header"][data-batch-id="${batchId}"]`)).toContainText('2 calls');

  // The wait for approval and the retry are drawn apart from execution.
  await expect(view.bar(run.waiting).locator('[data-segment="approval_wait"]')).toHaveCount(1);
  await expect(view.bar(run.waiting).locator('[data-segment="execution"]')).toHaveCount(1);
  await expect(view.bar(run.retried).locator('[data-segment="retry"]')).toHaveCount(1);
  await expect(view.bar(run.retried).locator('[data-segment="backoff"]')).toHaveCount(1);
  await expect(view.bar(run.parallel[0] ?? '')).toHaveAttribute('data-status', 'succeeded');
  await expect(view.bar(run.loop[0] ?? '')).toHaveAttribute('data-status', 'failed');

  // Loop detection: the repeated call is flagged with its count, and its bars are marked.
  await expect(view.findings.and(page.locator('[data-kind="repeated_call"]'))).toHaveAttribute('data-count', '3');
  await expect(view.findings.and(page.locator('[data-kind="repeated_call"]'))).toContainText('calculator called 3×');
  await expect(view.findings.and(page.locator('[data-kind="repeated_failure"]'))).toContainText('calculator failed 3×');
  await expect(page.locator('[data-testid="timeline-bar"][data-flagged="true"]')).toHaveCount(3);
  await expect(page.getByTestId('total-calls')).toContainText('7');
  await expect(page.getByTestId('total-failed')).toContainText('3');

  // Hover shows the call; j/k walk the calls; a click opens its trace.
  await view.bar(run.waiting).hover();
  await expect(view.details).toHaveAttribute('data-trace-id', run.waiting);
  await expect(view.details).toContainText('for approval (approved)');
  await expect(page.getByTestId('export-session')).toHaveAttribute('href', `/api/v1/sessions/${run.session}/export`);
  await expect(page.getByTestId('replay-session')).toBeVisible();
  await view.bar(run.retried).click();
  await expect(page).toHaveURL(new RegExp(`/traces/${run.retried}$`));
});

test('the sessions list searches, keeps failed-only, loads more with the keyboard, and is live', async ({
  page,
  request,
}) => {
  const prefix = unique('sess-list');
  for (let i = 0; i < 52; i++) {
    await postToolCall(request, {
      id: unique('call'),
      name: 'calculator',
      arguments: { expression: i === 7 ? '1/' : `${i}+1` },
      sessionId: `${prefix}-${String(i).padStart(2, '0')}`,
    });
  }
  const list = new SessionsPage(page);
  await list.goto();
  await page.keyboard.press('/');
  await expect(list.search).toBeFocused();
  await page.keyboard.type(prefix.toUpperCase());
  await expect(list.rows).toHaveCount(50);
  await expect(page).toHaveURL(new RegExp(`q=${prefix.toUpperCase()}`));
  await expect(list.rows.first()).toHaveAttribute('data-session-id', `${prefix}-51`);
  await list.loadMore.click();
  await expect(list.rows).toHaveCount(52);
  await expect(list.loadMore).toHaveCount(0);

  await list.failedOnly.check();
  await expect(list.rows).toHaveCount(1);
  await expect(list.rows.first()).toHaveAttribute('data-session-id', `${prefix}-07`);
  // Back to the pages already loaded for this search.
  await list.failedOnly.uncheck();
  await expect(list.rows).toHaveCount(52);

  // Live: a call in a new matching session appears without a reload, on top.
  const fresh = `${prefix}-new`;
  await postToolCall(request, {
    id: unique('call'),
    name: 'calculator',
    arguments: { expression: '9*9' },
    sessionId: fresh,
  });
  await expect(list.rows.first()).toHaveAttribute('data-session-id', fresh);

  await page.locator('main h1').click();
  await page.keyboard.press('j');
  await page.keyboard.press('j');
  await expect(list.rows.nth(1)).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/sessions/${prefix}-51$`));
  await expect(new SessionViewPage(page).view).toHaveAttribute('data-session-id', `${prefix}-51`);
});

test('the session view follows a running session live', async ({ page, request }) => {
  const session = unique('sess-live');
  await postToolCall(request, {
    id: unique('call'),
    name: 'calculator',
    arguments: { expression: '1+1' },
    sessionId: session,
  });
  const view = new SessionViewPage(page);
  await view.goto(session);
  await expect(view.bars).toHaveCount(1);
  const waiting = await postToolCall(request, {
    id: unique('call'),
    name: 'write_file',
    arguments: { path: `${session}.txt`, content: 'x' },
    sessionId: session,
    wait: false,
  });
  await expect(view.bar(waiting.traceId)).toHaveAttribute('data-status', 'awaiting_approval');
  await expect(view.bar(waiting.traceId).locator('[data-segment="approval_wait"]')).toHaveCount(1);
  await expect(page.getByTestId('total-running')).toContainText('1');
  const denied = await request.post(`/api/v1/approvals/${waiting.traceId}`, {
    data: { decision: 'deny', reason: 'no' },
  });
  expect(denied.ok()).toBe(true);
  await expect(view.bar(waiting.traceId)).toHaveAttribute('data-status', 'denied');
  await expect(page.getByTestId('total-denied')).toContainText('1');
  await expect(page.getByTestId('total-running')).toContainText('0');
});

test('an unknown session is a 404 page and a 404 answer', async ({ page, request }) => {
  const response = await request.get('/api/v1/sessions/no-such-session');
  expect(response.status()).toBe(404);
  expect((await response.json()).error.code).toBe('NOT_FOUND');
  const bad = await request.get('/api/v1/sessions?cursor=zzz');
  expect(bad.status()).toBe(400);
  expect((await bad.json()).error.code).toBe('INVALID_CURSOR');
  const answer = await page.goto('/sessions/no-such-session');
  expect(answer?.status()).toBe(404);
});

/** The sessions page and a session view, light and dark; only when SCREENS_DIR is set. */
test('screenshots of the sessions page and a session view', async ({ browser, request }) => {
  test.skip(!SCREENS, 'set SCREENS_DIR to take screenshots');
  test.setTimeout(90_000);
  const run = await recordAgentRun(request);
  for (const theme of ['light', 'dark'] as const) {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    await context.addInitScript((t) => localStorage.setItem('toolscope-theme', t), theme);
    const page = await context.newPage();
    const list = new SessionsPage(page);
    await list.goto();
    await expect(list.row(run.session)).toBeVisible();
    await page.screenshot({ path: path.join(SCREENS as string, `sessions-${theme}.png`) });
    const view = new SessionViewPage(page);
    await view.goto(run.session);
    await view.bar(run.waiting).hover();
    await page.screenshot({ path: path.join(SCREENS as string, `session-view-${theme}.png`), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: path.join(SCREENS as string, `session-view-${theme}-390.png`), fullPage: true });
    await context.close();
  }
});
