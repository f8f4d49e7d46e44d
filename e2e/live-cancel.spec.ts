import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { type AppServer, startAppServer } from './app-server';
import { unique } from './pages/api';
import { LiveTracePage } from './pages/live-trace-page';
import { TracesPage } from './pages/traces-page';

/** The trace id of the only call of `session`, once it is recorded. */
async function traceOfSession(page: Page, session: string): Promise<string> {
  let id = '';
  await expect
    .poll(async () => {
      const response = await page.request.get(`/api/v1/traces?session=${encodeURIComponent(session)}`);
      const body = (await response.json()) as { items: { id: string }[] };
      id = body.items[0]?.id ?? '';
      return id;
    })
    .not.toBe('');
  return id;
}

test('a running run_shell call streams its output and running attempt, and is cancelled from its page', async ({
  page,
}) => {
  test.setTimeout(60_000);
  const session = unique('live-cancel');
  // The agent's request stays open while the call runs; it must get the cancelled result.
  const agent = page.request.post('/api/v1/tool-calls', {
    timeout: 55_000,
    data: {
      session_id: session,
      tool_calls: [
        {
          id: unique('call_hang'),
          type: 'function',
          function: {
            name: 'run_shell',
            arguments: JSON.stringify({
              command: ['sh', '-c', 'echo tick-1; echo warming up >&2; sleep 2; echo tick-2; sleep 60'],
            }),
          },
        },
      ],
    },
  });
  const traceId = await traceOfSession(page, session);
  const trace = new LiveTracePage(page);
  await trace.goto(traceId);
  await expect(trace.status).toHaveAttribute('data-status', 'running');
  await trace.waitUntilLive();

  // What is happening now: the execute stage running, attempt 1 running with its limit.
  await expect(trace.stage('execute')).toHaveAttribute('data-status', 'running');
  await expect(trace.stage('normalize')).toHaveAttribute('data-status', 'pending');
  await expect(trace.attempt('running')).toHaveCount(1);
  await expect(page.getByText('No attempt ran')).toHaveCount(0);
  await expect(trace.activity).toHaveText('execute — attempt 1 running');
  await expect(trace.waterfallLimit.first()).toBeVisible();

  // Output as it is produced: tick-2 is printed two seconds in, after the page loaded.
  await expect(trace.stdout).toContainText('tick-1');
  await expect(trace.stderr).toContainText('warming up');
  await expect(trace.stdout).toContainText('tick-2', { timeout: 10_000 });
  const before = await trace.elapsed.textContent();
  await expect(trace.elapsed).not.toHaveText(before ?? '', { timeout: 3_000 });

  await page.setViewportSize({ width: 390, height: 900 });
  const ticks = await page.getByTestId('waterfall-tick').all();
  const boxes = await Promise.all(ticks.map((tick) => tick.boundingBox()));
  for (let i = 1; i < boxes.length; i++) {
    const [left, right] = [boxes[i - 1], boxes[i]];
    if (left && right) expect(left.x + left.width, 'axis labels must not overlap').toBeLessThanOrEqual(right.x);
  }
  await page.setViewportSize({ width: 1280, height: 900 });

  await page.keyboard.press('c');
  await expect(trace.status).toHaveAttribute('data-status', 'cancelled', { timeout: 10_000 });
  await expect(trace.errorCode).toHaveText('CANCELLED');
  await expect(trace.stage('execute')).toHaveAttribute('data-status', 'cancelled');
  await expect(trace.stage('normalize').getByTestId('stage-duration')).toHaveText('—');
  await expect(page.getByTestId('error-cancelled-by')).toHaveText('local');
  await expect(trace.attempt('cancelled')).toHaveCount(1);
  await expect(trace.cancelButton).toHaveCount(0);

  const answer = (await (await agent).json()) as { results: { status: string; error: { code: string } }[] };
  expect(answer.results[0]).toMatchObject({ status: 'cancelled', error: { code: 'CANCELLED' } });
});

test('a fail_fast cancellation links to the failed call; an unknown tool links to no tool page', async ({
  page,
  request,
}) => {
  const session = unique('fail-fast');
  const response = await request.post('/api/v1/tool-calls', {
    data: {
      session_id: session,
      fail_fast: true,
      max_concurrency: 1,
      tool_calls: [
        { id: unique('call_unknown'), type: 'function', function: { name: 'search_web', arguments: '{}' } },
        {
          id: unique('call_next'),
          type: 'function',
          function: { name: 'calculator', arguments: '{"expression":"1"}' },
        },
      ],
    },
  });
  const { results } = (await response.json()) as { results: { trace_id: string; status: string }[] };
  const [unknown, waited] = results as [{ trace_id: string; status: string }, { trace_id: string; status: string }];
  expect(waited.status).toBe('cancelled');

  const trace = new LiveTracePage(page);
  await trace.goto(waited.trace_id);
  await page.getByTestId('error-failed-call').click();
  await expect(page).toHaveURL(new RegExp(`/traces/${unknown.trace_id}$`));
  await expect(page.getByTestId('trace-tool')).toHaveText('search_web');
  await expect(page.getByTestId('trace-tool').locator('a')).toHaveCount(0);
  // `]` opens the older call, `[` the newer one: there and back again.
  await page.keyboard.press(']');
  await expect(page).not.toHaveURL(new RegExp(`/traces/${unknown.trace_id}$`));
  await expect(page.getByTestId('trace-view')).toBeVisible();
  await page.keyboard.press('[');
  await expect(page).toHaveURL(new RegExp(`/traces/${unknown.trace_id}$`));
});

test.describe('a server that stops and comes back', () => {
  const port = Number(process.env.E2E_RESTART_PORT || 3202);
  const base = `http://127.0.0.1:${port}`;
  let dataDir = '';
  let server: AppServer | null = null;

  test.beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-e2e-restart-'));
  });
  test.afterAll(async () => {
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('the list says Disconnected within seconds, then brings new calls into the same tab', async ({
    page,
    request,
  }) => {
    test.setTimeout(150_000);
    server = await startAppServer({ port, dataDir, timeoutMs: 60_000 });
    const traces = new TracesPage(page);
    await page.goto(`${base}/`);
    await traces.waitUntilLive();

    const stopped = Date.now();
    await server.stop();
    await expect(traces.liveIndicator).toHaveAttribute('data-state', 'disconnected', { timeout: 15_000 });
    expect(Date.now() - stopped).toBeLessThan(15_000);
    await expect(traces.liveIndicator).toContainText(/Disconnected — reconnecting/);

    server = await startAppServer({ port, dataDir, timeoutMs: 60_000 });
    await expect(traces.liveIndicator).toHaveAttribute('data-state', 'live', { timeout: 40_000 });
    // A call made after the restart arrives in the tab that was open across it.
    const toolCallId = unique('call_after_restart');
    const response = await request.post(`${base}/api/v1/tool-calls`, {
      data: {
        tool_calls: [
          { id: toolCallId, type: 'function', function: { name: 'calculator', arguments: '{"expression":"6 * 7"}' } },
        ],
      },
    });
    expect(response.ok()).toBe(true);
    const { results } = (await response.json()) as { results: { trace_id: string }[] };
    await expect(traces.row(results[0]?.trace_id ?? '')).toBeVisible({ timeout: 10_000 });
  });
});
