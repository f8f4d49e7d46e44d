import { expect, test } from '@playwright/test';
import { formatDuration } from '../lib/ui/format';
import { unique } from './pages/api';
import { pendingWrite } from './pages/approvals-page';
import { SessionViewPage } from './pages/sessions-page';
import { TracePage } from './pages/trace-page';
import { TracesPage } from './pages/traces-page';

/** How long the write waits for a person: seconds, where the write itself takes milliseconds. */
const WAIT_MS = 2_500;

interface TraceJson {
  status: string;
  created_at: string;
  finished_at: string;
  approval_wait_ms: number | null;
  result: { latency_ms: number };
}

test('a write approved after a wait shows its execution as the latency, and the wait beside it', async ({
  page,
  request,
}) => {
  const session = unique('sess-latency');
  const traceId = await pendingWrite(request, `notes/${unique('latency')}.txt`, 'ran in milliseconds', session);
  const readTrace = async () => (await (await request.get(`/api/v1/traces/${traceId}`)).json()) as TraceJson;

  // While it waits, the trace says so beside the latency (which holds still: nothing runs).
  const trace = new TracePage(page);
  await trace.goto(traceId);
  await expect(trace.status).toHaveAttribute('data-status', 'awaiting_approval');
  await expect(page.getByTestId('trace-approval-wait')).toHaveText('waiting for approval');
  await expect(page.getByTestId('trace-elapsed')).toContainText('waiting');

  await page.waitForTimeout(WAIT_MS);
  const decided = await request.post(`/api/v1/approvals/${traceId}`, { data: { decision: 'approve' } });
  expect(decided.ok()).toBe(true);
  await expect.poll(async () => (await readTrace()).status).toBe('succeeded');

  // The API: latency_ms is execution only, approval_wait_ms the wait; together, arrival to answer.
  const json = await readTrace();
  const latency = json.result.latency_ms;
  const wait = json.approval_wait_ms ?? 0;
  expect(wait).toBeGreaterThanOrEqual(WAIT_MS);
  expect(latency).toBeLessThan(wait);
  const wall = Date.parse(json.finished_at) - Date.parse(json.created_at);
  expect(Math.abs(latency + wait - wall)).toBeLessThanOrEqual(2);

  // The open page follows the call: milliseconds as its latency, "waited 2.5 s for approval" beside.
  await expect(trace.status).toHaveAttribute('data-status', 'succeeded');
  await expect(page.getByTestId('trace-latency')).toHaveText(formatDuration(latency));
  await expect(page.getByTestId('trace-approval-wait')).toHaveText(`waited ${formatDuration(wait)} for approval`);
  await page.reload();
  await expect(page.getByTestId('trace-latency')).toHaveText(formatDuration(latency));
  await expect(page.getByTestId('trace-approval-wait')).toHaveText(`waited ${formatDuration(wait)} for approval`);

  // The list's latency cell: the execution, its bar to scale with it, the wait beside.
  const list = new TracesPage(page);
  await list.goto(`?session=${encodeURIComponent(session)}`);
  const row = list.row(traceId);
  await expect(row.getByTestId('latency-approval-wait')).toContainText(formatDuration(wait));
  await expect(row).toContainText(formatDuration(latency));

  // The session: ended (nothing running or waiting), the wait its own total.
  const view = new SessionViewPage(page);
  await view.goto(session);
  await expect(page.getByTestId('total-running')).toContainText('0');
  await expect(page.getByTestId('total-waiting')).toContainText('0');
  await expect(page.getByTestId('total-approval-wait')).toContainText(formatDuration(wait));
  await expect(page.getByTestId('session-call-latency')).toContainText(formatDuration(latency));
});
