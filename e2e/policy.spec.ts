import { expect } from '@playwright/test';
import { testWithOwnServer } from './app-server';
import { postToolCall, unique } from './pages/api';
import { PolicyPage, policyRules, putRuleThroughApi, recordCalls } from './pages/policy-page';

// Saving the policy writes the one policy every call is judged by (and changes its ETag, which a
// draft open elsewhere must rebase on): this file has a Toolscope of its own. Rules are still
// limited to a session of their own, so that one test's rules do not decide another's calls.
const test = testWithOwnServer('toolscope-e2e-policy-');

test('a rule added in the UI is previewed against the recorded calls, saved with s, kept after a reload, removed', async ({
  page,
  request,
}) => {
  const session = unique('sess-policy');
  const echoes = await recordCalls(request, session);
  const policy = new PolicyPage(page);
  await policy.goto();
  await expect(policy.draftBar).toHaveAttribute('data-dirty', 'false');
  await expect(policy.preview).toHaveAttribute('data-state', 'idle');
  await expect(page.getByTestId('precedence')).toContainText('deny, then ask, then allow');
  await expect(page.getByTestId('tool-default').and(page.locator('[data-tool="write_file"]'))).toContainText(
    'default for write: ask',
  );
  await expect(page.getByTestId('tool-default').and(page.locator('[data-tool="run_shell"]'))).toContainText(
    'policies.run_shell = allow',
  );

  // `n` focuses the form; the specifier help follows the tool.
  await page.locator('main').click({ position: { x: 2, y: 2 } });
  await page.keyboard.press('n');
  await expect(policy.listSelect).toBeFocused();
  await policy.toolSelect.selectOption('run_shell');
  await expect(policy.specifierHelp).toContainText('the command as words, each matching one argument');
  await policy.fillRule({ list: 'deny', tool: 'run_shell', specifier: 'echo *', session });

  const row = policy.row('deny', 'run_shell(echo *)', session);
  await expect(row).toHaveAttribute('data-draft', 'added');
  await expect(policy.draftBar).toHaveAttribute('data-dirty', 'true');
  await expect(policy.preview).toHaveAttribute('data-state', 'ready');
  await expect(policy.changedCount).toHaveText('2');
  for (const id of echoes) {
    const call = page.locator(`[data-testid="preview-call"][data-trace-id="${id}"]`);
    await expect(call).toContainText('allow');
    await expect(call).toContainText(`deny run_shell(echo *) [session ${session}]`);
    await expect(call.getByRole('link', { name: 'run_shell' })).toHaveAttribute('href', `/traces/${id}`);
  }
  expect(await policy.delta('deny')).toBe(2);
  expect(await policy.delta('allow')).toBe(-2);
  // Nothing is saved until Save.
  expect((await policyRules(request)).some((r) => r.session === session)).toBe(false);

  await page.locator('main').click({ position: { x: 2, y: 2 } });
  await page.keyboard.press('s');
  await policy.expectSaved();
  expect(await policyRules(request)).toContainEqual(
    expect.objectContaining({ list: 'deny', rule: 'run_shell(echo *)', session, source: 'data' }),
  );
  // The saved rule decides the next call of the session.
  const denied = await postToolCall(request, {
    id: unique('call'),
    name: 'run_shell',
    arguments: { command: ['echo', 'three'] },
    sessionId: session,
  });
  expect(denied.status).toBe('denied');

  await page.reload();
  await expect(row).toBeVisible();
  await expect(row).not.toHaveAttribute('data-draft', 'added');
  await expect(row).toContainText('policy.json');

  // Remove it: the preview shows the calls going back to allow (now three), Discard undoes, Ctrl+S saves.
  await row.getByTestId('rule-remove').click();
  await expect(page.getByTestId('rule-row-removed').and(page.locator('[data-rule="run_shell(echo *)"]'))).toBeVisible();
  await expect(policy.changedCount).toHaveText('3');
  await policy.discard.click();
  await expect(row).toBeVisible();
  await expect(policy.draftBar).toHaveAttribute('data-dirty', 'false');
  await row.getByTestId('rule-remove').click();
  await expect(policy.changedCount).toHaveText('3');
  await page.keyboard.press('ControlOrMeta+s');
  await policy.expectSaved();
  await expect(row).toHaveCount(0);
  expect((await policyRules(request)).some((r) => r.session === session)).toBe(false);
});

test('a bad specifier shows the server error at the field and stays out of the draft; Escape clears the form', async ({
  page,
}) => {
  const policy = new PolicyPage(page);
  await policy.goto();
  await policy.fillRule({ list: 'allow', tool: 'write_file', specifier: '/etc/**' });
  await expect(policy.specifierError).toContainText('is absolute');
  await expect(policy.specifier).toHaveAttribute('aria-invalid', 'true');
  await expect(policy.draftBar).toHaveAttribute('data-dirty', 'false');
  await expect(policy.row('allow', 'write_file(/etc/**)')).toHaveCount(0);

  await policy.specifier.press('Escape');
  await expect(policy.specifierError).toHaveCount(0);
  await expect(policy.specifier).toHaveValue('');

  // A tool without a permission subject takes no specifier.
  await policy.toolSelect.selectOption('calculator');
  await expect(policy.specifier).toBeDisabled();
  await expect(policy.specifierHelp).toContainText('takes no specifier');
});

test('a rule created through PUT /api/v1/policy appears without a reload, and survives saving a draft begun before it', async ({
  page,
  request,
}) => {
  const session = unique('sess-policy-api');
  const policy = new PolicyPage(page);
  await policy.goto();
  // A draft begun before the API's rule…
  await policy.fillRule({ list: 'deny', tool: 'read_file', specifier: 'secrets/**', session });
  const drafted = policy.row('deny', 'read_file(secrets/**)', session);
  await expect(drafted).toHaveAttribute('data-draft', 'added');

  await putRuleThroughApi(request, { list: 'ask', rule: 'calculator', session });
  const fromApi = policy.row('ask', 'calculator', session);
  await expect(fromApi).toBeVisible({ timeout: 15_000 });
  await expect(fromApi).not.toHaveAttribute('data-draft', 'added');

  // …saved afterwards keeps it.
  await policy.save.click();
  await policy.expectSaved();
  const saved = (await policyRules(request)).filter((r) => r.session === session);
  expect(saved.map((r) => `${r.list} ${r.rule}`).sort()).toEqual(['ask calculator', 'deny read_file(secrets/**)']);

  await fromApi.getByTestId('rule-remove').click();
  await drafted.getByTestId('rule-remove').click();
  await expect(page.getByTestId('rule-row-removed')).toHaveCount(2);
  await policy.save.click();
  await policy.expectSaved();
  await expect(fromApi).toHaveCount(0);
  await expect(drafted).toHaveCount(0);
  expect((await policyRules(request)).some((r) => r.session === session)).toBe(false);
});

test('"Always allow" on an approval creates a rule that appears on the Policy page', async ({ page, request }) => {
  const session = unique('sess-policy-always');
  const posted = await request.post('/api/v1/tool-calls', {
    data: {
      session_id: session,
      wait: false,
      tool_calls: [
        {
          id: unique('call'),
          type: 'function',
          function: { name: 'write_file', arguments: JSON.stringify({ path: 'notes/always.md', content: 'hi' }) },
        },
      ],
    },
  });
  expect(posted.ok()).toBe(true);
  const result = ((await posted.json()) as { results: { trace_id: string; status: string }[] }).results[0];
  expect(result?.status).toBe('awaiting_approval');
  const decided = await request.post(`/api/v1/approvals/${result?.trace_id}`, {
    data: { decision: 'approve', always: { specifier: 'notes/**', session: true } },
  });
  expect(decided.status(), await decided.text()).toBe(200);

  const policy = new PolicyPage(page);
  await policy.goto();
  const row = policy.row('allow', 'write_file(notes/**)', session);
  await expect(row).toBeVisible();
  await expect(row).toContainText('policy.json');
  // Removable there.
  await row.getByTestId('rule-remove').click();
  await policy.save.click();
  await policy.expectSaved();
  expect((await policyRules(request)).some((r) => r.session === session)).toBe(false);
});
