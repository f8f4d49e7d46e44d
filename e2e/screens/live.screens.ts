import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { freePort, startAppServer } from '../app-server';
import { unique } from '../pages/api';
import { LiveTracePage } from '../pages/live-trace-page';
import { TracesPage } from '../pages/traces-page';
import { shotBothSchemes } from './screens';

/** The trace id of the only call of `session`, once it is recorded. */
async function traceOfSession(page: Page, session: string): Promise<string> {
  let id = '';
  await expect
    .poll(async () => {
      const response = await page.request.get(`/api/v1/traces?session=${encodeURIComponent(session)}`);
      id = ((await response.json()) as { items: { id: string }[] }).items[0]?.id ?? '';
      return id;
    })
    .not.toBe('');
  return id;
}

test('a running call streaming its output, on a desktop and a phone, and then cancelled', async ({ page }) => {
  const session = unique('live-screens');
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
  const trace = new LiveTracePage(page);
  await trace.goto(await traceOfSession(page, session));
  await trace.waitUntilLive();
  await expect(trace.stdout).toContainText('tick-2', { timeout: 10_000 });
  await shotBothSchemes(page, 'trace-running');
  await page.setViewportSize({ width: 390, height: 900 });
  await shotBothSchemes(page, 'trace-running-390');
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.keyboard.press('c');
  await expect(trace.status).toHaveAttribute('data-status', 'cancelled', { timeout: 10_000 });
  await agent;
  await shotBothSchemes(page, 'trace-cancelled');
});

test('the list while the server is away', async ({ page }) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-screens-away-'));
  const port = await freePort();
  const server = await startAppServer({ port, dataDir, timeoutMs: 60_000 });
  try {
    const traces = new TracesPage(page);
    await page.goto(`http://127.0.0.1:${port}/`);
    await traces.waitUntilLive();
    await server.stop();
    await expect(traces.liveIndicator).toHaveAttribute('data-state', 'disconnected', { timeout: 15_000 });
    await shotBothSchemes(page, 'list-disconnected');
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
