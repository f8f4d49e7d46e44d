import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from '@playwright/test';
import { freePort, testWithOwnServer } from './app-server';
import { postToolCall, unique } from './pages/api';
import { CircuitPanel } from './pages/circuit-panel';
import { startUpstream } from './pages/upstream';

// A breaker opened here would refuse other specs' calls to that host, and the config sets
// http_request's breaker tight (2 failures in a row, one attempt a call, 2 minutes open): this
// file has a Toolscope of its own, started with this config file.
const configFile = path.join(os.tmpdir(), `toolscope-e2e-breaker-${process.pid}.json`);
fs.writeFileSync(
  configFile,
  JSON.stringify({
    tools: { http_request: { retries: 1, circuit_breaker: { failure_threshold: 2, cooldown_ms: 120_000 } } },
  }),
);
const test = testWithOwnServer('toolscope-e2e-breaker-', { env: { TOOLSCOPE_CONFIG: configFile } });

test.afterAll(() => {
  fs.rmSync(configFile, { force: true });
});

test('a dead port opens the breaker of its host only; the tool page shows why and until when, and Reset closes it', async ({
  page,
  request,
}) => {
  const healthy = await startUpstream();
  const deadHost = `127.0.0.1:${await freePort()}`;
  const healthyHost = new URL(healthy.url).host;
  const get = (host: string, url = `http://${host}/health`) =>
    postToolCall(request, { id: unique('call_breaker'), name: 'http_request', arguments: { url } });
  try {
    // Two refused connections in a row open the breaker of that host:port...
    const first = await get(deadHost);
    const second = await get(deadHost);
    expect(first.error?.code).toBe('CONNECTION_REFUSED');
    expect(second.error?.code).toBe('CONNECTION_REFUSED');
    const refused = await get(deadHost);
    expect(refused.error?.code).toBe('CIRCUIT_OPEN');
    // ...and the error says which host, and when it will try again.
    expect(refused.error?.message).toContain(`http_request to ${deadHost} is paused`);
    expect(refused.error?.message).toMatch(/trial at \d{4}-\d\d-\d\dT[\d:.]+Z \(in \d+ s\)/);

    // Another host is still called.
    const fine = await get(healthyHost, healthy.url);
    expect(fine.status).toBe('succeeded');

    // The API names the open breaker, its failures, and the effective settings.
    const tool = await (await request.get('/api/v1/tools/http_request')).json();
    expect(tool).toMatchObject({
      retry: { max_attempts: 1 },
      circuit_breaker: { failure_threshold: 2, cooldown_ms: 120_000, per_key: true },
      circuit_state: 'open',
      circuits: [{ key: deadHost, state: 'open', failures: [first.traceId, second.traceId] }],
    });

    // The tool page: the settings from the config, the open breaker of that host only.
    const panel = new CircuitPanel(page);
    await panel.goto('http_request');
    await expect(page.getByTestId('tool-breaker')).toContainText('opens after 2 failures in a row');
    await expect(page.getByTestId('tool-breaker')).toContainText('one per host');
    await expect(page.getByTestId('tool-retries')).toHaveText('no retries');
    await expect(panel.panel).toHaveAttribute('data-state', 'open');
    await expect(panel.circuit(deadHost)).toHaveAttribute('data-state', 'open');
    await expect(panel.circuit(healthyHost)).toHaveCount(0);

    // Why: the two failures, each linked to its trace.
    await expect(panel.failures(deadHost)).toHaveCount(2);
    await expect(panel.failures(deadHost).nth(0)).toHaveAttribute('href', `/traces/${first.traceId}`);
    await expect(panel.failures(deadHost).nth(1)).toHaveAttribute('href', `/traces/${second.traceId}`);

    // When: a countdown to the next trial call that ticks.
    const countdown = panel.countdown(deadHost);
    await expect(countdown).toContainText(/next trial call in \d+:\d\d/);
    const shown = await countdown.textContent();
    await expect.poll(() => countdown.textContent(), { timeout: 5_000 }).not.toBe(shown);

    // Reset (local mode's person has every role): the breaker closes, and the host is called again.
    await expect(panel.circuit(deadHost).getByTestId('circuit-reset')).toBeEnabled();
    await panel.reset(deadHost);
    await expect(page.getByTestId('circuit-reset-done')).toContainText(`Closed ${deadHost}`);
    await expect(panel.panel).toHaveAttribute('data-state', 'closed');
    await expect(page.getByTestId('circuit-closed')).toBeVisible();
    await expect(panel.circuit(deadHost)).toHaveCount(0);

    const after = await (await request.get('/api/v1/tools/http_request')).json();
    expect(after).toMatchObject({ circuit_state: 'closed', circuits: [] });
    expect((await get(deadHost)).error?.code).toBe('CONNECTION_REFUSED');

    // The reset is in the audit trail.
    const audit = await (await request.get('/api/v1/audit?kind=circuit.reset')).json();
    expect(audit.entries[0]).toMatchObject({
      kind: 'circuit.reset',
      target: 'http_request',
      detail: { reset: [deadHost] },
    });
  } finally {
    await healthy.close();
  }
});
