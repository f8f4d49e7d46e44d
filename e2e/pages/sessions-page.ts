import { type APIRequestContext, expect, type Locator, type Page } from '@playwright/test';

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
