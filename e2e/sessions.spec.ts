import { expect, type Page, type Request, test } from '@playwright/test';
import { postToolCall, unique } from './pages/api';
import { recordAgentRun, SessionsPage, SessionViewPage } from './pages/sessions-page';

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

/**
 * Holds the first request to `/api/v1/sessions` that `hold` picks until `until` resolves (or
 * `boundMs` passes), then lets it through; resolves `held` once it has been caught.
 */
function holdSessionsRequest(
  page: Page,
  hold: (url: URL) => boolean,
  until: Promise<unknown>,
  boundMs = 3_000,
): { held: Promise<void> } {
  let caught: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    caught = resolve;
  });
  let done = false;
  void page.route('**/api/v1/sessions?*', async (route) => {
    if (done || !hold(new URL(route.request().url()))) return route.fallback();
    done = true;
    caught();
    await Promise.race([until, new Promise((resolve) => setTimeout(resolve, boundMs))]);
    await route.fallback();
  });
  return { held };
}

/** Resolves when the page sends a sessions request that `match` picks. */
function sessionsRequest(page: Page, match: (url: URL) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const seen = (req: Request) => {
      const url = new URL(req.url());
      if (url.pathname !== '/api/v1/sessions' || !match(url)) return;
      page.off('request', seen);
      resolve();
    };
    page.on('request', seen);
  });
}

test('"Load more" while a live update refetches the list loads the next page, and the update lands too', async ({
  page,
  request,
}) => {
  test.setTimeout(60_000);
  const prefix = unique('sess-race');
  for (let i = 0; i < 51; i++) {
    await postToolCall(request, {
      id: unique('call'),
      name: 'calculator',
      arguments: { expression: `${i}+1` },
      sessionId: `${prefix}-${String(i).padStart(2, '0')}`,
    });
  }
  const ours = (url: URL) => url.searchParams.get('q') === prefix;
  const list = new SessionsPage(page);

  // A live update arrives while the next page is on its way: it must not throw that page away.
  await list.goto(`?q=${prefix}`);
  await expect(list.rows).toHaveCount(50);
  const nextPage = holdSessionsRequest(
    page,
    (url) => ours(url) && url.searchParams.has('cursor'),
    sessionsRequest(page, (url) => ours(url) && !url.searchParams.has('cursor')),
  );
  await list.loadMore.click();
  await nextPage.held;
  const first = `${prefix}-new-a`;
  await postToolCall(request, {
    id: unique('call'),
    name: 'calculator',
    arguments: { expression: '1' },
    sessionId: first,
  });
  await expect(list.rows.first()).toHaveAttribute('data-session-id', first);
  await expect(list.rows).toHaveCount(52);
  await expect(list.loadMore).toHaveCount(0);
  await page.unrouteAll({ behavior: 'wait' });

  // "Load more" clicked while a live refetch is on its way: both land.
  await list.goto(`?q=${prefix}`);
  await expect(list.rows).toHaveCount(50);
  const second = `${prefix}-new-b`;
  const refetch = holdSessionsRequest(
    page,
    (url) => ours(url) && !url.searchParams.has('cursor'),
    sessionsRequest(page, (url) => ours(url) && url.searchParams.has('cursor')),
  );
  await postToolCall(request, {
    id: unique('call'),
    name: 'calculator',
    arguments: { expression: '2' },
    sessionId: second,
  });
  await refetch.held;
  await list.loadMore.click();
  await expect(list.rows.first()).toHaveAttribute('data-session-id', second);
  await expect(list.rows).toHaveCount(53);
  await expect(list.loadMore).toHaveCount(0);
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
  // Awaiting a person is waiting, not running.
  await expect(page.getByTestId('total-waiting')).toContainText('1');
  await expect(page.getByTestId('total-running')).toContainText('0');
  const denied = await request.post(`/api/v1/approvals/${waiting.traceId}`, {
    data: { decision: 'deny', reason: 'no' },
  });
  expect(denied.ok()).toBe(true);
  await expect(view.bar(waiting.traceId)).toHaveAttribute('data-status', 'denied');
  await expect(page.getByTestId('total-denied')).toContainText('1');
  await expect(page.getByTestId('total-waiting')).toContainText('0');
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
