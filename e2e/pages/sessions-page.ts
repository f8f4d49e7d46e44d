import fs from 'node:fs';
import path from 'node:path';
import { type APIRequestContext, expect, type Locator, type Page } from '@playwright/test';
import { postToolCall, unique } from './api';
import { createRule } from './faults-page';

/** The sessions list (`/sessions`): search, failed-only, rows, load more. */
export class SessionsPage {
  readonly search: Locator;
  readonly failedOnly: Locator;
  readonly rows: Locator;
  readonly loadMore: Locator;

  constructor(readonly page: Page) {
    this.search = page.getByTestId('sessions-search');
    this.failedOnly = page.getByTestId('sessions-failed-only');
    this.rows = page.getByTestId('session-row');
    this.loadMore = page.getByTestId('sessions-load-more');
  }

  async goto(search = '') {
    await this.page.goto(`/sessions${search}`);
    await expect(this.page.getByTestId('live-indicator')).toHaveAttribute('data-state', 'live');
  }

  row(id: string): Locator {
    return this.page.locator(`[data-testid="session-row"][data-session-id="${id}"]`);
  }
}

/** One session's view (`/sessions/<id>`): totals, findings, the timeline and the calls table. */
export class SessionViewPage {
  readonly view: Locator;
  readonly timeline: Locator;
  readonly bars: Locator;
  readonly findings: Locator;
  readonly details: Locator;

  constructor(readonly page: Page) {
    this.view = page.getByTestId('session-view');
    this.timeline = page.getByTestId('session-timeline');
    this.bars = page.getByTestId('timeline-bar');
    this.findings = page.getByTestId('finding');
    this.details = page.getByTestId('call-details');
  }

  async goto(id: string) {
    await this.page.goto(`/sessions/${encodeURIComponent(id)}`);
    await expect(this.view).toBeVisible();
    await expect(this.page.getByTestId('live-indicator')).toHaveAttribute('data-state', 'live');
  }

  bar(traceId: string): Locator {
    return this.page.locator(`[data-testid="timeline-bar"][data-trace-id="${traceId}"]`);
  }
}

/** Sends the calls of one request (one batch) through `POST /api/v1/tool-calls`; returns the results. */
export async function postBatch(
  request: APIRequestContext,
  body: { sessionId: string; calls: { id: string; name: string; arguments: unknown }[]; wait?: boolean },
): Promise<{ trace_id: string; status: string }[]> {
  const response = await request.post('/api/v1/tool-calls', {
    data: {
      session_id: body.sessionId,
      ...(body.wait === undefined ? {} : { wait: body.wait }),
      tool_calls: body.calls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: JSON.stringify(call.arguments) },
      })),
    },
  });
  expect(response.ok(), await response.text()).toBe(true);
  return ((await response.json()) as { results: { trace_id: string; status: string }[] }).results;
}

/**
 * An agent run with everything the session view draws: two calls of one request running at once,
 * a call retried after an injected failure, a write that waited for approval, and a loop of the
 * same failing calculator call.
 */
export async function recordAgentRun(request: APIRequestContext) {
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
