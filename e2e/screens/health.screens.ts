import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import Database from 'better-sqlite3';
import { freePort, startAppServer } from '../app-server';
import { unique } from '../pages/api';
import { shot, THEMES, themedPage } from './screens';

test('the health banner while the store cannot write, light and dark, desktop and phone', async ({
  browser,
  request,
}) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-screens-health-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = await startAppServer({ port, dataDir, timeoutMs: 60_000 });
  // Another process holds the database's write lock: the store queues its writes and says so.
  const lock = new Database(path.join(dataDir, 'toolscope.db'), { timeout: 10_000 });
  try {
    for (const expression of ['1+1', '6*7']) {
      void request
        .post(`${base}/api/v1/tool-calls`, {
          timeout: 120_000,
          data: {
            session_id: unique('sess-health'),
            tool_calls: [
              {
                id: unique('call'),
                type: 'function',
                function: { name: 'calculator', arguments: JSON.stringify({ expression }) },
              },
            ],
          },
        })
        .catch(() => null);
    }
    lock.exec('BEGIN IMMEDIATE');
    for (const expression of ['2+2', '3*3']) {
      void request
        .post(`${base}/api/v1/tool-calls`, {
          timeout: 120_000,
          data: {
            tool_calls: [
              {
                id: unique('call'),
                type: 'function',
                function: { name: 'calculator', arguments: JSON.stringify({ expression }) },
              },
            ],
          },
        })
        .catch(() => null);
    }
    for (const theme of THEMES) {
      for (const width of [1440, 390]) {
        const { context, page } = await themedPage(browser, theme, width);
        await page.goto(`${base}/`);
        await expect(page.getByTestId('health-banner')).toBeVisible({ timeout: 20_000 });
        await page.screenshot({ path: shot(`health-banner-${theme}-${width}`) });
        await context.close();
      }
    }
    // The server gone while degraded: the banner stays, as the last known state.
    const { context, page } = await themedPage(browser, 'light', 1440);
    await page.goto(`${base}/sessions`);
    await expect(page.getByTestId('health-banner')).toBeVisible({ timeout: 20_000 });
    await server.stop();
    await expect(page.getByTestId('health-stale')).toBeVisible({ timeout: 20_000 });
    await page.screenshot({ path: shot('health-banner-stale-light-1440') });
    await context.close();
  } finally {
    if (lock.inTransaction) lock.exec('ROLLBACK');
    lock.close();
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('the health banner while the vault key is missing, light and dark', async ({ browser, request }) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-screens-vault-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let server = await startAppServer({ port, dataDir, timeoutMs: 60_000 });
  try {
    await request.post(`${base}/api/v1/tool-calls`, {
      data: {
        session_id: unique('sess-vault'),
        tool_calls: [
          {
            id: unique('call'),
            type: 'function',
            function: {
              name: 'run_shell',
              arguments: JSON.stringify({ command: ['echo', 'sk-live-abcdefghijklmnop1234'] }),
            },
          },
        ],
      },
    });
    await server.stop();
    fs.rmSync(path.join(dataDir, 'vault.key'));
    server = await startAppServer({ port, dataDir, timeoutMs: 60_000 });
    for (const [theme, width] of [
      ['light', 1440],
      ['dark', 1440],
      ['light', 390],
    ] as const) {
      const { context, page } = await themedPage(browser, theme, width);
      await page.goto(`${base}/`);
      await expect(page.getByTestId('health-vault')).toBeVisible({ timeout: 20_000 });
      await page.screenshot({ path: shot(`health-vault-${theme}-${width}`) });
      await context.close();
    }
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
