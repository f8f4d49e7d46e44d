import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { ownAppServer } from './app-server';

/** The tools page says what run_shell runs programs in: quietly with the sandbox, loudly without. */
test('the tools page says run_shell runs in a bubblewrap sandbox', async ({ page }) => {
  await page.goto('/tools');
  const notice = page.getByTestId('sandbox-notice');
  await expect(notice).toHaveAttribute('data-sandbox', 'bubblewrap');
  await expect(notice).toContainText('bubblewrap sandbox');
  await expect(notice).toContainText('without network');
});

test.describe('a Toolscope with the sandbox turned off', () => {
  const configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-e2e-sandbox-config-'));
  const configPath = path.join(configDir, 'toolscope.config.json');
  fs.writeFileSync(configPath, JSON.stringify({ shell: { allow: ['echo'], sandbox: 'none' } }));
  test.afterAll(() => fs.rmSync(configDir, { recursive: true, force: true }));
  const app = ownAppServer('toolscope-e2e-sandbox-', { timeoutMs: 60_000, env: { TOOLSCOPE_CONFIG: configPath } });

  test('the tools page warns that there is no sandbox and run_shell is refused; the API says why', async ({
    page,
    request,
  }) => {
    await page.goto(`${app.base}/tools`);
    const notice = page.getByRole('status').filter({ hasText: 'No sandbox for run_shell' });
    await expect(notice).toHaveAttribute('data-sandbox', 'none');
    await expect(notice).toContainText('the config sets shell.sandbox to "none"');
    await expect(notice).toContainText('Every run_shell call is refused');

    const listing = await (await request.get(`${app.base}/api/v1/tools`)).json();
    expect(listing.sandbox).toMatchObject({ kind: 'none', run_shell: 'refused' });
    const answer = await request.post(`${app.base}/api/v1/tool-calls`, {
      data: {
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'run_shell', arguments: '{"command":["echo","hi"]}' } },
        ],
      },
    });
    const [result] = (await answer.json()).results;
    expect(result.error).toMatchObject({ code: 'PERMISSION_DENIED', details: { check: 'shell sandbox' } });
  });
});
