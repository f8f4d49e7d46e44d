import { expect, test } from '@playwright/test';
import { TracePage } from './pages/trace-page';
import { TracesPage } from './pages/traces-page';

test('a calculator call posted through the API is listed and its stages are shown', async ({ page, request }) => {
  const id = `call_e2e_${Date.now()}`;
  const response = await request.post('/api/v1/tool-calls', {
    data: {
      session_id: 'e2e-foundation',
      tool_calls: [{ id, type: 'function', function: { name: 'calculator', arguments: '{"expression":"6*7"}' } }],
    },
  });
  expect(response.status()).toBe(200);
  const body = await response.json();
  expect(body.results[0]).toMatchObject({ tool_call_id: id, success: true, status: 'succeeded' });
  expect(body.messages[0]).toMatchObject({ role: 'tool', tool_call_id: id });
  expect(body.messages[0].content).toContain('42');
  const traceId: string = body.results[0].trace_id;

  const traces = new TracesPage(page);
  await traces.goto();
  // Live means hydrated and subscribed: a click now is handled by the app, not lost mid-hydration.
  await traces.waitUntilLive();
  const row = traces.row(traceId);
  await expect(row).toBeVisible();
  await expect(row).toHaveAttribute('data-status', 'succeeded');
  await expect(row).toHaveAttribute('data-tool', 'calculator');

  await row.getByRole('link').first().click();
  await expect(page).toHaveURL(new RegExp(`/traces/${traceId}$`));
  const trace = new TracePage(page);
  await expect(trace.status).toContainText(/succeeded/i);
  await expect(trace.stages).toHaveCount(6);
  for (const name of ['parse', 'validate', 'permission', 'execute', 'normalize', 'trace']) {
    await expect(trace.stage(name)).toHaveAttribute('data-status', 'ok');
  }
});
