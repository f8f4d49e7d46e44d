import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { postToolCall, unique } from '../pages/api';
import { TracePage } from '../pages/trace-page';
import { TracesPage } from '../pages/traces-page';
import { shot, THEMES, themedPage } from './screens';

test('the list and a trace, light and dark, desktop and phone', async ({ browser, request }) => {
  const dataDir = process.env.E2E_DATA_DIR;
  const session = unique('sess-screens');
  if (dataDir) {
    fs.mkdirSync(path.join(dataDir, 'workspace'), { recursive: true });
    const lines = Array.from({ length: 400 }, (_, i) => `line ${i + 1}: status=ok token=[REDACTED] value="${i * 7}"`);
    fs.writeFileSync(path.join(dataDir, 'workspace', 'report.log'), lines.join('\n'));
  }
  for (const expression of ['2+2', '6*7', 'sqrt(2)']) {
    await postToolCall(request, {
      id: unique('call'),
      name: 'calculator',
      arguments: { expression },
      sessionId: session,
    });
  }
  for (const file of ['README.md', 'docs/missing.md']) {
    await postToolCall(request, {
      id: unique('call'),
      name: 'read_file',
      arguments: { path: file },
      sessionId: session,
    });
  }
  await postToolCall(request, {
    id: unique('call'),
    name: 'search_web',
    arguments: { query: 'toolscope agent tool calls' },
    sessionId: session,
  });
  await postToolCall(request, {
    id: unique('call'),
    name: 'calculator',
    arguments: { expression: '1/' },
    sessionId: session,
  });
  const shown = await postToolCall(request, {
    id: unique('call'),
    name: 'read_file',
    arguments: { path: 'report.log' },
    sessionId: session,
  });

  for (const theme of THEMES) {
    for (const width of [1440, 390]) {
      const { context, page } = await themedPage(browser, theme, width);
      const traces = new TracesPage(page);
      await traces.goto(`?session=${session}`);
      await expect(traces.rows.first()).toBeVisible();
      await page.screenshot({ path: shot(`list-${theme}-${width}`), fullPage: true });
      if (width > 500) {
        await traces.goto();
        await expect(traces.total).toBeVisible();
        await page.screenshot({ path: shot(`list-all-${theme}`) });
        await traces.goto(`?session=${session}`);
        await traces.openRowMenu(shown.traceId);
        await page.screenshot({ path: shot(`list-menu-${theme}`) });
        await page.keyboard.press('Escape');
        await page.getByTestId('time-zone-label').click();
        await page.screenshot({ path: shot(`list-zone-menu-${theme}`) });
        await page.keyboard.press('Escape');
        await page.locator('main').click({ position: { x: 2, y: 2 } });
        await page.keyboard.press('?');
        await page.screenshot({ path: shot(`shortcuts-${theme}`) });
        await page.keyboard.press('Escape');
      }
      const trace = new TracePage(page);
      await trace.goto(shown.traceId);
      const output = await trace.openTab('output');
      await page.screenshot({ path: shot(`trace-${theme}-${width}`), fullPage: true });
      await output.getByRole('button', { name: 'Raw' }).click();
      await output.getByTestId('find-input').fill('line 3');
      await output.getByTestId('find-input').press('Enter');
      await output.scrollIntoViewIfNeeded();
      await page.screenshot({ path: shot(`trace-raw-find-${theme}-${width}`) });
      await context.close();
    }
  }
});
