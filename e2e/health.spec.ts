import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import Database from 'better-sqlite3';
import { type AppServer, freePort, startAppServer } from './app-server';
import { unique } from './pages/api';

/**
 * Another process holding the database's write lock (`BEGIN IMMEDIATE`), as a backup tool or a
 * second Toolscope on the same folder would: the store cannot commit until `release`.
 */
function holdWriteLock(dataDir: string) {
  const db = new Database(path.join(dataDir, 'toolscope.db'), { timeout: 10_000 });
  db.exec('BEGIN IMMEDIATE');
  return {
    release() {
      if (db.open) {
        db.exec('ROLLBACK');
        db.close();
      }
    },
  };
}

// This spec locks its server's database and stops the server: it has one of its own.
test.describe('the health banner', () => {
  let dataDir = '';
  let server: AppServer | null = null;
  test.beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-e2e-health-'));
  });
  test.afterAll(async () => {
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('shows on every page while the store cannot write, says nothing new when the server is away, and goes when all is well', async ({
    page,
    request,
  }) => {
    test.setTimeout(240_000);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    server = await startAppServer({ port, dataDir, timeoutMs: 60_000 });
    const health = page.getByTestId('health');
    const banner = page.getByTestId('health-banner');
    /** A calculator call as an agent sends it (`arguments` as JSON text); its answer may wait for the store. */
    const send = (expression: string) =>
      request.fetch(`${base}/api/v1/tool-calls`, {
        method: 'POST',
        timeout: 60_000,
        data: {
          tool_calls: [
            { id: unique('call_health'), type: 'function', function: { name: 'calculator', arguments: expression } },
          ],
        },
      });

    await page.goto(`${base}/`);
    await expect(health).toHaveAttribute('data-status', 'ok');
    await expect(banner).toHaveCount(0);

    // Degraded: the banner says what is wrong, on every page.
    let lock = holdWriteLock(dataDir);
    try {
      const answers = [send('{"expression":"1+1"}'), send('{"expression":"2+2"}')];
      await expect(banner).toBeVisible({ timeout: 20_000 });
      await expect(health).toHaveAttribute('data-status', 'degraded');
      await expect(banner).toContainText('Store degraded: writes are failing.');
      await expect(page.getByTestId('health-queued')).not.toHaveAttribute('data-queued', '0');
      await expect(page.getByTestId('health-last-error')).toContainText(/busy|locked/i);
      await expect(page.getByTestId('health-disk-free')).toContainText(/free on disk/);
      await expect(banner).toContainText('Calls already answered are kept and will be written when the store recovers');
      for (const where of ['/sessions', '/tools', '/approvals']) {
        await page.goto(`${base}${where}`);
        await expect(banner).toBeVisible();
      }
      // Recovered: the banner goes by itself, and the calls are recorded.
      lock.release();
      await expect(health).toHaveAttribute('data-status', 'ok', { timeout: 20_000 });
      await expect(banner).toHaveCount(0);
      for (const answer of answers) expect((await answer).status()).toBeLessThan(500);
    } finally {
      lock.release();
    }

    // The server away while all was well: no banner, the page knows it is unreachable.
    await server.stop();
    await expect(health).toHaveAttribute('data-unreachable', 'true', { timeout: 20_000 });
    await expect(health).toBeEmpty();
    server = await startAppServer({ port, dataDir, timeoutMs: 60_000 });
    await expect(health).toHaveAttribute('data-unreachable', 'false', { timeout: 20_000 });

    // The server away while degraded: the banner stays, as the last known state.
    lock = holdWriteLock(dataDir);
    try {
      const answer = send('{"expression":"3+3"}');
      await expect(banner).toBeVisible({ timeout: 20_000 });
      await server.stop();
      await answer.catch(() => null);
      await expect(page.getByTestId('health-stale')).toContainText('the server is not answering', { timeout: 20_000 });
      await expect(banner).toBeVisible();
    } finally {
      lock.release();
    }
    server = await startAppServer({ port, dataDir, timeoutMs: 60_000 });
    await expect(health).toHaveAttribute('data-status', 'ok', { timeout: 30_000 });
    await expect(health).toHaveAttribute('data-unreachable', 'false');
    await expect(banner).toHaveCount(0);
  });

  test('says what to do while the vault key is missing, beside a healthy store', async ({ page, request }) => {
    test.setTimeout(180_000);
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-e2e-vault-'));
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    let own: AppServer | null = await startAppServer({ port, dataDir: folder, timeoutMs: 60_000 });
    try {
      // A call whose arguments hold a secret: kept sealed under the vault key.
      const sealed = await request.post(`${base}/api/v1/tool-calls`, {
        data: {
          tool_calls: [
            {
              id: unique('call_secret'),
              type: 'function',
              function: {
                name: 'run_shell',
                arguments: JSON.stringify({ command: ['echo', 'sk-live-abcdefghijklmnop1234'] }),
              },
            },
          ],
        },
      });
      expect(sealed.ok(), await sealed.text()).toBe(true);
      await own.stop();
      fs.rmSync(path.join(folder, 'vault.key'));
      own = await startAppServer({ port, dataDir: folder, timeoutMs: 60_000 });

      await page.goto(`${base}/tools`);
      const health = page.getByTestId('health');
      await expect(health).toHaveAttribute('data-vault', 'missing');
      await expect(health).toHaveAttribute('data-status', 'ok');
      await expect(page.getByTestId('health-vault')).toContainText('Vault key missing.');
      await expect(page.getByTestId('health-vault')).toContainText('--discard-sealed');
      await expect(page.getByTestId('health-queued')).toHaveCount(0);
    } finally {
      await own?.stop();
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});
