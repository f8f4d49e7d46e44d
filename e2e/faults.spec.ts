import { type APIRequestContext, expect, type Page } from '@playwright/test';
import { testWithOwnServer } from './app-server';
import { postToolCall, unique } from './pages/api';
import { createRule, FaultsPage, faultsBadge, listRules } from './pages/faults-page';
import { TracePage } from './pages/trace-page';
import { TracesPage } from './pages/traces-page';
import { startUpstream } from './pages/upstream';

// "Disable all" and "Delete all" act on every rule, and the navigation counts them all: this
// file has a Toolscope of its own. Its tests run in order.
const test = testWithOwnServer('toolscope-e2e-faults-');

interface TraceJson {
  status: string;
  flags: { faulted: boolean };
  stages: { name: string; duration_ms: number }[];
  attempts: {
    number: number;
    duration_ms: number;
    backoff_ms: number | null;
    fault: { rule_id: string | null; rule_name?: string; kind: string; [key: string]: unknown } | null;
  }[];
}

async function traceJson(request: APIRequestContext, id: string): Promise<TraceJson> {
  const response = await request.get(`/api/v1/traces/${id}`);
  expect(response.ok()).toBe(true);
  return (await response.json()) as TraceJson;
}

/** Presses a key with the focus on the page, not in a field. */
async function pressOnPage(page: Page, key: string) {
  await page.locator('main').click({ position: { x: 2, y: 2 } });
  await page.keyboard.press(key);
}

test('a fail_first rule made in the form: three attempts with their backoff, the fault badges and banner; the list filter finds the call', async ({
  page,
  request,
}) => {
  const session = unique('sess-faults');
  const upstream = await startUpstream();
  try {
    const faults = new FaultsPage(page);
    await faults.goto();

    // `n` opens the form on the name field; a bad parameter comes back from the server at its field.
    await pressOnPage(page, 'n');
    await expect(faults.form).toBeVisible();
    await expect(faults.field('fault-name')).toBeFocused();
    await faults.field('fault-name').fill('flaky upstream');
    await faults.field('fault-kind').selectOption('fail_first');
    await expect(page.getByTestId('fault-kind-help')).toContainText('first n attempts fail');
    // The calculator makes one attempt per call: failing the first two would fail every call.
    await faults.field('fault-tool').fill('calculator');
    await faults.field('fault-param-n').fill('2');
    await expect(faults.field('fault-warning')).toContainText('calculator makes at most 1 attempt per call');
    await faults.field('fault-tool').fill('http_*');
    await expect(faults.field('fault-warning')).toHaveCount(0);
    await faults.field('fault-param-n').fill('0');
    await faults.field('fault-more-toggle').click();
    await faults.field('fault-session').fill(session);
    await faults.field('fault-param-n').press('Enter');
    await expect(faults.fieldError('params.n')).toBeVisible();
    await expect(faults.field('fault-param-n')).toHaveAttribute('aria-invalid', 'true');
    await expect(faults.rows.and(page.locator(`[data-name="flaky upstream"]`))).toHaveCount(0);

    await faults.field('fault-param-n').fill('2');
    await expect(faults.fieldError('params.n')).toHaveCount(0);
    await faults.field('fault-save').click();
    await expect(faults.form).toBeHidden();
    const row = faults.row('flaky upstream');
    await expect(row).toHaveAttribute('data-state', 'active');
    await expect(row.getByTestId('fault-kind-cell')).toContainText('fail_first first 2 attempts');
    await expect(row).toContainText(session);
    await expect(faultsBadge(page)).toBeVisible();
    const ruleId = await row.getAttribute('data-rule-id');
    expect(ruleId).toMatch(/^flt_/);

    // A call in the rule's session: attempts 1 and 2 fail on purpose, attempt 3 runs the tool.
    const call = await postToolCall(request, {
      id: unique('call'),
      name: 'http_request',
      arguments: { url: upstream.url },
      sessionId: session,
    });
    expect(call.status).toBe('succeeded');
    const json = await traceJson(request, call.traceId);
    expect(json.flags.faulted).toBe(true);
    expect(json.attempts.map((a) => a.fault?.kind ?? null)).toEqual(['fail_first', 'fail_first', null]);
    expect(json.attempts[0]?.fault).toMatchObject({ rule_id: ruleId, rule_name: 'flaky upstream', n: 2 });

    const trace = new TracePage(page);
    await trace.goto(call.traceId);
    await expect(page.getByTestId('flag-faulted')).toBeVisible();
    const banner = page.getByTestId('fault-banner');
    await expect(banner).toContainText('Fault injected by rule flaky upstream (fail_first) in attempts 1, 2');
    await expect(banner).toContainText("not the tool's");
    const waterfall = page.getByTestId('waterfall');
    await expect(waterfall.getByTestId('waterfall-attempt')).toHaveCount(3);
    await expect(waterfall.getByTestId('waterfall-backoff')).toHaveCount(2);
    await expect(waterfall.getByTestId('waterfall-fault-mark')).toHaveCount(2);
    await expect(waterfall.locator('[data-testid="waterfall-bar"][data-fault="fail_first"]')).toHaveCount(2);
    const attempts = page.getByTestId('attempt-row');
    await expect(attempts).toHaveCount(3);
    await expect(attempts.nth(0).getByTestId('attempt-fault')).toContainText('fail_first 1/2');
    await expect(attempts.nth(1).getByTestId('attempt-fault')).toContainText('fail_first 2/2');
    await expect(attempts.nth(2)).not.toHaveAttribute('data-fault');
    await expect(attempts.nth(0)).toContainText('INJECTED_FAILURE');

    // The badge's rule link opens the rule on the Faults page, selected.
    await attempts.nth(0).getByTestId('attempt-fault-rule').click();
    await expect(page).toHaveURL(new RegExp(`/faults\\?rule=${ruleId}`));
    await expect(faults.row('flaky upstream')).toHaveAttribute('aria-selected', 'true');
    const hits = faults.row('flaky upstream').getByTestId('fault-hits');
    await expect(hits).toHaveAttribute('data-hits', '2');
    await faults.row('flaky upstream').getByTestId('fault-hits-reset').click();
    await expect(hits).toHaveAttribute('data-hits', '0');

    // The list's "Fault-injected" filter keeps the faulted call and drops a plain one of the session.
    const plain = await postToolCall(request, {
      id: unique('call'),
      name: 'calculator',
      arguments: { expression: '6*7' },
      sessionId: session,
    });
    const traces = new TracesPage(page);
    await traces.goto(`?session=${session}`);
    await expect(traces.rows).toHaveCount(2);
    await page.getByTestId('filter-faulted').check();
    await expect(page).toHaveURL(/faulted=true/);
    await expect(traces.rows).toHaveCount(1);
    await expect(traces.row(call.traceId)).toBeVisible();
    await expect(traces.row(plain.traceId)).toHaveCount(0);
    await expect(traces.row(call.traceId).getByTestId('flag-faulted')).toBeVisible();
  } finally {
    await upstream.close();
  }
});

test('a latency rule shows in the timings: the attempt and the execute stage last at least the delay', async ({
  page,
  request,
}) => {
  const session = unique('sess-latency');
  const rule = await createRule(request, {
    name: 'latency e2e',
    tool: 'calculator',
    session_id: session,
    kind: 'latency',
    params: { ms: 300 },
  });
  const call = await postToolCall(request, {
    id: unique('call'),
    name: 'calculator',
    arguments: { expression: '2+2' },
    sessionId: session,
  });
  expect(call.status).toBe('succeeded');
  const json = await traceJson(request, call.traceId);
  expect(json.attempts).toHaveLength(1);
  expect(json.attempts[0]?.fault).toMatchObject({ rule_id: rule.id, kind: 'latency', ms: 300 });
  expect(json.attempts[0]?.duration_ms).toBeGreaterThanOrEqual(300);
  expect(json.stages.find((s) => s.name === 'execute')?.duration_ms).toBeGreaterThanOrEqual(300);

  const trace = new TracePage(page);
  await trace.goto(call.traceId);
  await expect(page.getByTestId('attempt-fault')).toContainText('latency 300 ms');
  await expect(page.getByTestId('waterfall-fault-latency')).toHaveAttribute('data-ms', '300');
  const shown = await page.getByTestId('attempt-duration').first().textContent();
  const ms = /([\d.]+) (ms|s)/.exec(shown ?? '');
  expect(ms, shown ?? '').not.toBeNull();
  expect(Number(ms?.[1]) * (ms?.[2] === 's' ? 1000 : 1)).toBeGreaterThanOrEqual(300);
  await expect(page.getByTestId('fault-banner')).toContainText('latency e2e (latency) in attempt 1');
});

test('the navigation shows active rules until "Disable all"; rules switch on and off, are edited, deleted, and all deleted', async ({
  page,
  request,
}) => {
  const session = unique('sess-nav');
  await createRule(request, {
    name: 'nav rule',
    tool: 'calculator',
    session_id: session,
    kind: 'error',
    params: { code: 'DOWN' },
  });
  // The call it breaks says, at its error, that the failure was injected.
  const broken = await postToolCall(request, {
    id: unique('call'),
    name: 'calculator',
    arguments: { expression: '1+1' },
    sessionId: session,
  });
  expect(broken.status).toBe('failed');
  expect(broken.error?.code).toBe('DOWN');
  await new TracePage(page).goto(broken.traceId);
  await expect(page.getByTestId('error-injected')).toContainText(
    "Injected by fault rule nav rule (error) — this failure is not the tool's",
  );
  await expect(page.getByTestId('attempt-fault')).toContainText('error DOWN');

  const traces = new TracesPage(page);
  await traces.goto();
  const badge = faultsBadge(page);
  await expect(badge).toBeVisible();
  const active = (await listRules(request)).active;
  await expect(badge).toHaveAttribute('data-count', String(active));
  // On a phone the sections scroll sideways: the header's corner keeps a pill in sight.
  const phoneBadge = page.getByTestId('faults-phone-badge');
  await expect(phoneBadge).toBeHidden();
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(phoneBadge).toBeVisible();
  await expect(phoneBadge).toBeInViewport();
  await page.setViewportSize({ width: 1280, height: 720 });

  const faults = new FaultsPage(page);
  await page.getByRole('link', { name: /^Faults/ }).click();
  await expect(page.getByTestId('faults-page')).toBeVisible();
  await expect(faults.bar).toHaveAttribute('data-active', String(active));
  await faults.disableAll.click();
  await expect(badge).toHaveCount(0);
  await expect(phoneBadge).toHaveCount(0);
  await expect(page.getByTestId('faults-none-active')).toBeVisible();
  const row = faults.row('nav rule');
  await expect(row).toHaveAttribute('data-state', 'disabled');
  expect((await listRules(request)).active).toBe(0);

  // Switched on again from its row, the badge comes back on every page.
  await row.getByTestId('fault-toggle').click();
  await expect(row).toHaveAttribute('data-state', 'active');
  await expect(badge).toHaveAttribute('data-count', '1');

  // Keys: `/` filters, j selects, t switches off, e edits.
  await pressOnPage(page, '/');
  await expect(faults.filter).toBeFocused();
  await faults.filter.fill('nav rule');
  await faults.filter.press('Escape');
  await expect(faults.rows).toHaveCount(1);
  await page.keyboard.press('j');
  await expect(row).toHaveAttribute('aria-selected', 'true');
  await page.keyboard.press('t');
  await expect(row).toHaveAttribute('data-enabled', 'false');
  await expect(badge).toHaveCount(0);
  await page.keyboard.press('e');
  await expect(faults.form).toHaveAttribute('data-mode', 'edit');
  await expect(faults.field('fault-param-code')).toHaveValue('DOWN');
  await faults.field('fault-name').fill('nav rule 2');
  await faults.field('fault-enabled').check();
  await faults.field('fault-save').click();
  await expect(faults.row('nav rule 2')).toHaveAttribute('data-state', 'active');
  const edited = (await listRules(request)).faults.find((r) => r.name === 'nav rule 2');
  expect(edited).toMatchObject({ kind: 'error', params: { code: 'DOWN', retryable: false }, enabled: true });

  // Delete asks in the row first.
  await faults.row('nav rule 2').getByTestId('fault-delete').click();
  await page.getByTestId('fault-delete-confirm').click();
  await expect(faults.row('nav rule 2')).toHaveCount(0);

  // Delete all asks too, then the empty state says what faults are for.
  await faults.filter.fill('');
  await faults.deleteAll.click();
  await page.getByTestId('faults-reset-confirm').click();
  await expect(faults.empty).toBeVisible();
  await expect(badge).toHaveCount(0);
  expect((await listRules(request)).faults).toHaveLength(0);
});
