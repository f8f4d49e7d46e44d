import { type APIRequestContext, expect, test } from '@playwright/test';
import { postToolCall, unique } from './pages/api';
import { ComparePage, openTrace } from './pages/compare-page';
import { SessionViewPage } from './pages/sessions-page';

/** The calls a session's view holds, and its findings. */
async function sessionOf(request: APIRequestContext, id: string) {
  const response = await request.get(`/api/v1/sessions/${encodeURIComponent(id)}`);
  expect(response.ok(), await response.text()).toBe(true);
  return (await response.json()) as { calls: { id: string }[]; findings: unknown[]; replay_of_session: string | null };
}

test('a replay from the trace page runs in a session of its own, and the compare view opens while it runs', async ({
  page,
  request,
}) => {
  const session = unique('sess-own');
  const first = await postToolCall(request, {
    id: unique('call'),
    name: 'run_shell',
    arguments: { command: ['echo', 'recorded'] },
    sessionId: session,
  });
  const second = await postToolCall(request, {
    id: unique('call'),
    name: 'calculator',
    arguments: { expression: '1+1' },
    sessionId: session,
  });
  expect((await sessionOf(request, session)).calls.map((call) => call.id)).toEqual([first.traceId, second.traceId]);

  // Replay with a slow fault: 25 s of latency, under run_shell's 30 s timeout.
  await openTrace(page, first.traceId);
  await page.getByTestId('replay-fault').click();
  const panel = page.getByTestId('replay-panel');
  await panel.getByTestId('fault-kind').selectOption('latency');
  await panel.locator('[data-field="ms"]').fill('25000');
  await panel.getByTestId('replay-submit').click();

  // The compare view opens at once, long before the replay ends, and shows it running.
  await page.waitForURL(new RegExp(`/traces/${first.traceId}/compare/[^/]+$`), { timeout: 10_000 });
  const replayId = page.url().split('/').pop() as string;
  const compare = new ComparePage(page);
  await expect(compare.view).toHaveAttribute('data-b', replayId);
  await expect(page.getByTestId('compare-status-b')).toHaveAttribute('data-status', 'running');

  // The replay is in a session of its own; the recorded session is as the agent left it.
  const replayed = await request.get(`/api/v1/traces/${replayId}`);
  expect(await replayed.json()).toMatchObject({
    session_id: `${session}~replay-1`,
    session_seq: 1,
    replay_of: first.traceId,
    actor: 'replay',
  });
  const recorded = await sessionOf(request, session);
  expect(recorded.calls).toHaveLength(2);
  expect(recorded.findings).toEqual([]);
  const listed = await request.get(`/api/v1/sessions?q=${encodeURIComponent(session)}`);
  const rows = ((await listed.json()) as { sessions: { id: string; calls: number }[] }).sessions;
  expect(rows.map((row) => [row.id, row.calls]).sort()).toEqual([
    [session, 2],
    [`${session}~replay-1`, 1],
  ]);

  // The replay's session page says what it replays.
  const view = new SessionViewPage(page);
  await view.goto(`${session}~replay-1`);
  await expect(page.getByTestId('session-replay-of')).toContainText('Replay of session');
  await expect(page.getByTestId('session-replay-of-link')).toHaveAttribute(
    'href',
    `/sessions/${encodeURIComponent(session)}`,
  );
  await expect(page.getByTestId('total-calls')).toContainText('1');

  // The original trace lists the replay in flight with its status, and follows it to its end.
  await openTrace(page, first.traceId);
  const item = page.locator(`[data-testid="replay-item"][data-trace-id="${replayId}"]`);
  await expect(item.getByTestId('replay-status')).toHaveAttribute('data-status', 'running');
  const cancelled = await request.post(`/api/v1/traces/${replayId}/cancel`, { data: {} });
  expect(cancelled.status(), await cancelled.text()).toBe(200);
  // Ended: the badge says cancelled until the page's lineage is read again, which no longer
  // lists it in flight (then the badge goes). Either is what happened; "running" would be a lie.
  const badge = item.getByTestId('replay-status');
  await expect
    .poll(async () =>
      (await badge.count()) === 0
        ? 'gone'
        : ((await badge.getAttribute('data-status', { timeout: 1_000 }).catch(() => 'gone')) ?? 'gone'),
    )
    .toMatch(/^(cancelled|gone)$/);

  // A second replay of the same session gets the next number.
  const again = await request.post(`/api/v1/traces/${second.traceId}/replay`, { data: {} });
  expect(again.ok()).toBe(true);
  const againId = ((await again.json()) as { trace_id: string }).trace_id;
  const againTrace = await request.get(`/api/v1/traces/${againId}`);
  expect(((await againTrace.json()) as { session_id: string }).session_id).toBe(`${session}~replay-2`);
  expect((await sessionOf(request, session)).calls).toHaveLength(2);
});
