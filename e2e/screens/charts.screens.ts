import { test } from '@playwright/test';
import { postToolCall, unique } from '../pages/api';
import { ChartsPage } from '../pages/charts-page';
import { shot, THEMES } from './screens';

test('the charts, light and dark, desktop and phone', async ({ browser, request }) => {
  // A few calls: good ones and one that fails inside the calculator.
  for (const expression of ['1 + 1', '6 * 7', '2 ^ 10', '1 / ']) {
    await postToolCall(request, { id: unique('call_chart'), name: 'calculator', arguments: { expression } });
  }
  for (const scheme of THEMES) {
    for (const width of [1440, 390]) {
      const context = await browser.newContext({ colorScheme: scheme, viewport: { width, height: 900 } });
      const page = await context.newPage();
      const charts = new ChartsPage(page);
      await charts.goto(null, 'hour');
      await page.screenshot({ path: shot(`charts-tools-${scheme}-${width}`), fullPage: true });
      await charts.goto('calculator', 'hour');
      await page.screenshot({ path: shot(`charts-tool-page-${scheme}-${width}`), fullPage: true });
      await charts.goto('calculator', 'week');
      await charts.chart('calculator', 'calls').screenshot({ path: shot(`charts-week-${scheme}-${width}`) });
      await charts.goto('calculator', 'day');
      await charts.chart('calculator', 'latency').screenshot({ path: shot(`charts-day-${scheme}-${width}`) });
      await context.close();
    }
  }
});
