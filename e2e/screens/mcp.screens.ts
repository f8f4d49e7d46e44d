import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import { flakyDownFlag } from '../app-server';
import { postToolCall, unique } from '../pages/api';
import { shot, THEMES, themedPage } from './screens';

test('the tools page with its MCP servers, one down, light and dark', async ({ browser, request }) => {
  const dataDir = process.env.E2E_DATA_DIR;
  if (!dataDir) throw new Error('E2E_DATA_DIR is set by the global setup');
  await postToolCall(request, { id: unique('call'), name: 'everything__echo', arguments: { message: 'screens' } });
  await postToolCall(request, { id: unique('call'), name: 'flaky__note', arguments: { text: 'screens' } });
  // Down: its flag keeps it from starting again, and its `crash` tool ends the running process.
  fs.writeFileSync(flakyDownFlag(dataDir), 'down for the screenshots\n');
  await postToolCall(request, { id: unique('call_crash'), name: 'flaky__crash', arguments: {} });
  try {
    for (const theme of THEMES) {
      const { context, page } = await themedPage(browser, theme);
      await page.goto('/tools');
      const server = (name: string) => page.locator(`[data-testid="mcp-server"][data-server="${name}"]`);
      await expect(server('flaky').getByTestId('mcp-stderr')).toContainText('refusing to start', { timeout: 20_000 });
      await expect(server('everything')).toHaveAttribute('data-state', 'connected');
      await page.screenshot({ path: shot(`tools-mcp-${theme}`), fullPage: true });
      await page.getByTestId('mcp-servers').screenshot({ path: shot(`tools-mcp-servers-${theme}`) });
      await context.close();
    }
  } finally {
    fs.rmSync(flakyDownFlag(dataDir), { force: true });
    await request.post('/api/v1/mcp/servers/flaky/reconnect');
  }
});
