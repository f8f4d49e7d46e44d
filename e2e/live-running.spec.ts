import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { TracesPage } from './pages/traces-page';

test('a running call appears as running and updates in place when it finishes', async ({ page, request }) => {
  // A slow upstream on loopback, held open until the test lets it answer.
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const server = http.createServer(async (_req, res) => {
    await released;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const session = `live-running-${Date.now()}`;
  try {
    const traces = new TracesPage(page);
    await traces.goto(`?session=${session}`);
    await traces.waitUntilLive();

    const posted = request.post('/api/v1/tool-calls', {
      data: {
        session_id: session,
        tool_calls: [
          {
            id: 'call_slow',
            type: 'function',
            function: { name: 'http_request', arguments: JSON.stringify({ url: `http://127.0.0.1:${port}/slow` }) },
          },
        ],
      },
    });
    const row = traces.rows.first();
    await expect(row).toHaveAttribute('data-status', 'running', { timeout: 5_000 });
    await expect(row).toHaveAttribute('data-tool', 'http_request');
    const traceId = await row.getAttribute('data-trace-id');

    release();
    const response = await posted;
    expect(response.ok()).toBe(true);
    await expect(traces.row(traceId ?? '')).toHaveAttribute('data-status', 'succeeded', { timeout: 5_000 });
    await expect(traces.rows).toHaveCount(1);
  } finally {
    release();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
