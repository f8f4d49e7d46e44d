import { expect, test } from '@playwright/test';
import { postToolCall, unique } from './pages/api';
import { type ChartRange, ChartsPage } from './pages/charts-page';

const POINTS: Record<ChartRange, number> = { hour: 60, day: 96, week: 168 };

test.beforeAll(async ({ request }) => {
  // A few calls: good ones and one that fails inside the calculator.
  for (const expression of ['1 + 1', '6 * 7', '2 ^ 10', '1 / ']) {
    await postToolCall(request, { id: unique('call_chart'), name: 'calculator', arguments: { expression } });
  }
});

test('a tool page draws its calls, error rate and latency for each range, kept in the URL', async ({ page }) => {
  const charts = new ChartsPage(page);
  for (const range of ['hour', 'day', 'week'] as const) {
    await charts.goto('calculator', range);
    for (const kind of ['calls', 'errors', 'latency'] as const) {
      const chart = charts.chart('calculator', kind);
      await expect(chart).toHaveAttribute('data-range', range);
      await expect(chart).toHaveAttribute('data-points', String(POINTS[range]));
      await expect(chart.locator('svg.recharts-surface')).toBeVisible();
    }
    await expect(charts.bars('calculator').first()).toBeVisible();
    await expect(
      charts.chart('calculator', 'latency').locator('.recharts-line-dot, .recharts-dot').first(),
    ).toBeAttached();
    await expect(charts.summary('calculator', 'calls')).toContainText(/\d+ calls to calculator in the last/);
    await expect(charts.summary('calculator', 'errors')).toContainText(/Error rate \d/);
    await expect(charts.summary('calculator', 'latency')).toContainText(/p50 .+, p95 .+ over the last/);
    await expect(charts.rangeLink(range)).toHaveAttribute('aria-current', 'page');
  }

  await charts.rangeLink('hour').click();
  await expect(page).toHaveURL(/\/tools\/calculator\?range=hour$/);
  await expect(charts.callsChart('calculator')).toHaveAttribute('data-points', '60');
});

test('a tool page chart follows new calls without a reload', async ({ page, request }) => {
  const charts = new ChartsPage(page);
  await charts.goto('calculator', 'hour');
  const summary = charts.summary('calculator', 'calls');
  const before = Number((await summary.textContent())?.match(/^(\d+) calls/)?.[1] ?? 0);
  await postToolCall(request, {
    id: unique('call_chart_live'),
    name: 'calculator',
    arguments: { expression: '3 * 3' },
  });
  await expect(summary).toContainText(new RegExp(`^(${before + 1}|${before + 2}|${before + 3}) calls`));
});

test('the catalog charts all tools and gives each tool a sparkline', async ({ page }) => {
  const charts = new ChartsPage(page);
  await charts.goto(null, 'day');
  await expect(charts.bars(null).first()).toBeVisible();
  await expect(charts.summary(null, 'calls')).toContainText(/calls to all tools in the last day/);
  const row = charts.toolRow('calculator');
  await expect(row.getByTestId('sparkline')).toHaveAttribute('aria-label', /\d+ calls to calculator over the last day/);
  await expect(row.getByTestId('sparkline').locator('rect')).not.toHaveCount(0);
  await expect(row.getByTestId('tool-calls')).not.toHaveText('0');
});

test('a tool seen in calls but not registered gets its page and its row, not a 404', async ({ page, request }) => {
  await postToolCall(request, { id: unique('call_unknown'), name: 'search_web', arguments: { q: 'charts' } });
  const charts = new ChartsPage(page);
  await charts.goto('search_web', 'hour');
  await expect(page.getByTestId('tool-page')).toHaveAttribute('data-registered', 'false');
  await expect(charts.summary('search_web', 'errors')).toContainText(/Error rate 100%/);
  await expect(page.getByTestId('tool-run').first()).toBeVisible();
  await charts.goto(null, 'hour');
  await expect(charts.toolRow('search_web')).toHaveAttribute('data-registered', 'false');
});

test('the stats API refuses a bad range and an unknown tool', async ({ request }) => {
  expect((await request.get('/api/v1/stats?range=month')).status()).toBe(400);
  // A name no other spec calls: a tool seen in any call has stats.
  expect((await request.get(`/api/v1/tools/${unique('never_called')}/stats`)).status()).toBe(404);
  const body = await (await request.get('/api/v1/tools/calculator/stats?range=hour')).json();
  expect(body).toMatchObject({ range: 'hour', bucket_ms: 60_000 });
  expect(body.points).toHaveLength(60);
});
