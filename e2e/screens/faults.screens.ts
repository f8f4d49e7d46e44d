import { expect, test } from '@playwright/test';
import { postToolCall, unique } from '../pages/api';
import { createRule, FaultsPage, listRules } from '../pages/faults-page';
import { TracePage } from '../pages/trace-page';
import { TracesPage } from '../pages/traces-page';
import { startUpstream } from '../pages/upstream';
import { shot, THEMES, themedPage } from './screens';

test('the faults page and a faulted trace, light and dark', async ({ browser, request }) => {
  const session = unique('sess-fault-screens');
  const upstream = await startUpstream();
  try {
    await createRule(request, {
      name: 'flaky upstream',
      tool: 'http_*',
      session_id: session,
      kind: 'fail_first',
      params: { n: 2 },
      seed: 12345,
    });
    await createRule(request, {
      name: 'slow calculator',
      tool: 'calculator',
      session_id: session,
      kind: 'latency',
      params: { ms: 120, jitter_ms: 40 },
      probability: 0.5,
      seed: 7,
      max_hits: 20,
      expires_at: Date.now() + 60 * 60_000,
    });
    await createRule(request, {
      name: 'rate limited search',
      tool: 'http_request',
      session_id: session,
      kind: 'rate_limit',
      params: { retry_after_ms: 2000 },
      enabled: false,
    });
    await createRule(request, {
      name: 'garbage output',
      tool: 'read_file',
      session_id: session,
      kind: 'corrupt_output',
      params: { mode: 'invalid_json' },
      max_hits: 1,
    });
    const call = await postToolCall(request, {
      id: unique('call'),
      name: 'http_request',
      arguments: { url: upstream.url },
      sessionId: session,
    });
    await createRule(request, {
      name: 'calculator down',
      tool: 'calculator',
      session_id: `${session}-down`,
      kind: 'error',
      params: { code: 'UPSTREAM_DOWN', message: 'The math service is down', retryable: false },
      max_hits: 1,
    });
    const failed = await postToolCall(request, {
      id: unique('call'),
      name: 'calculator',
      arguments: { expression: '1+1' },
      sessionId: `${session}-down`,
    });
    expect(failed.status).toBe('failed');
    for (const expression of ['2+2', '6*7']) {
      await postToolCall(request, {
        id: unique('call'),
        name: 'calculator',
        arguments: { expression },
        sessionId: session,
      });
    }
    for (const theme of THEMES) {
      const { context, page } = await themedPage(browser, theme);
      const faults = new FaultsPage(page);
      await faults.goto();
      await expect(faults.rows.first()).toBeVisible();
      await page.screenshot({ path: shot(`faults-${theme}`), fullPage: true });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.screenshot({ path: shot(`faults-${theme}-390`), fullPage: true });
      await page.setViewportSize({ width: 1440, height: 900 });
      await faults.row('slow calculator').getByTestId('fault-edit').click();
      await faults.field('fault-param-ms').fill('lots');
      await faults.field('fault-save').click();
      await expect(faults.fieldError('params.ms')).toBeVisible();
      await page.screenshot({ path: shot(`faults-form-error-${theme}`) });
      const trace = new TracePage(page);
      await trace.goto(call.traceId);
      await page.screenshot({ path: shot(`trace-faulted-${theme}`), fullPage: true });
      await trace.goto(failed.traceId);
      await page.screenshot({ path: shot(`trace-fault-failed-${theme}`) });
      const traces = new TracesPage(page);
      await traces.goto(`?session=${session}&faulted=true`);
      await expect(page.getByTestId('filter-faulted')).toBeChecked();
      await page.screenshot({ path: shot(`traces-faulted-filter-${theme}`) });
      await context.close();
    }
  } finally {
    await upstream.close();
    // The rules of the screenshots stop here.
    for (const rule of (await listRules(request)).faults.filter((r) => r.session_id?.startsWith(session))) {
      await request.delete(`/api/v1/faults/${rule.id}`);
    }
  }
});

test('the faults page with no rules', async ({ browser, request }) => {
  // Runs after the screenshots above (one worker, in order), whose rules are gone by then.
  const rules = (await listRules(request)).faults;
  for (const rule of rules) await request.delete(`/api/v1/faults/${rule.id}`);
  const { context, page } = await themedPage(browser, 'light');
  const faults = new FaultsPage(page);
  await faults.goto();
  await expect(faults.empty).toBeVisible();
  await page.screenshot({ path: shot('faults-empty-light') });
  await context.close();
});
