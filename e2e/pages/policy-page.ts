import { type APIRequestContext, expect, type Locator, type Page } from '@playwright/test';
import { postToolCall, unique } from './api';

export interface RuleJson {
  id: string;
  list: 'allow' | 'ask' | 'deny';
  rule: string;
  session: string | null;
  source: 'config' | 'data';
}

/** The Policy page: rules by list, the add-rule form, the draft bar and the draft's preview. */
export class PolicyPage {
  readonly form: Locator;
  readonly listSelect: Locator;
  readonly toolSelect: Locator;
  readonly specifier: Locator;
  readonly session: Locator;
  readonly specifierError: Locator;
  readonly specifierHelp: Locator;
  readonly draftBar: Locator;
  readonly save: Locator;
  readonly discard: Locator;
  readonly preview: Locator;
  readonly changedCount: Locator;
  readonly changedCalls: Locator;

  constructor(readonly page: Page) {
    this.form = page.getByTestId('rule-form');
    this.listSelect = page.getByTestId('rule-list');
    this.toolSelect = page.getByTestId('rule-tool');
    this.specifier = page.getByTestId('rule-specifier');
    this.session = page.getByTestId('rule-session');
    this.specifierError = page.getByTestId('rule-specifier-error');
    this.specifierHelp = page.getByTestId('rule-specifier-help');
    this.draftBar = page.getByTestId('draft-bar');
    this.save = page.getByTestId('draft-save');
    this.discard = page.getByTestId('draft-discard');
    this.preview = page.getByTestId('preview');
    this.changedCount = page.getByTestId('preview-changed-count');
    this.changedCalls = page.getByTestId('preview-call');
  }

  async goto() {
    await this.page.goto('/policy');
    await expect(this.page.getByTestId('policy-page')).toBeVisible();
  }

  /** Fills the form and adds the rule to the draft (the server checks it first). */
  async fillRule(rule: { list: string; tool: string; specifier?: string; session?: string }) {
    await this.listSelect.selectOption(rule.list);
    await this.toolSelect.selectOption(rule.tool);
    if (rule.specifier !== undefined) await this.specifier.fill(rule.specifier);
    if (rule.session !== undefined) await this.session.fill(rule.session);
    await this.page.getByTestId('rule-add').click();
  }

  /** A data or config rule's row in the lists (not a removed one). */
  row(list: string, rule: string, session?: string): Locator {
    const rows = this.page.getByTestId(`rules-${list}`).locator(`[data-testid="rule-row"][data-rule="${rule}"]`);
    return session === undefined ? rows : rows.and(this.page.locator(`[data-session="${session}"]`));
  }

  count(policy: 'allow' | 'ask' | 'deny'): Locator {
    return this.page.getByTestId(`preview-count-${policy}`);
  }

  /** Before → after of one count in the preview. */
  async delta(policy: 'allow' | 'ask' | 'deny'): Promise<number> {
    const el = this.count(policy);
    return Number(await el.getAttribute('data-after')) - Number(await el.getAttribute('data-before'));
  }

  async expectSaved() {
    await expect(this.draftBar).toHaveAttribute('data-dirty', 'false');
  }
}

/** `GET /api/v1/policy`'s rules. */
export async function policyRules(request: APIRequestContext): Promise<RuleJson[]> {
  const response = await request.get('/api/v1/policy');
  expect(response.ok()).toBe(true);
  return ((await response.json()) as { rules: RuleJson[] }).rules;
}

/** Adds a data rule through `PUT /api/v1/policy`, keeping the data rules already there. */
export async function putRuleThroughApi(
  request: APIRequestContext,
  rule: { list: string; rule: string; session: string | null },
): Promise<RuleJson[]> {
  const kept = (await policyRules(request))
    .filter((r) => r.source === 'data')
    .map(({ list, rule: text, session }) => ({ list, rule: text, session }));
  const response = await request.put('/api/v1/policy', { data: { rules: [...kept, rule] } });
  expect(response.status(), await response.text()).toBe(200);
  return ((await response.json()) as { rules: RuleJson[] }).rules;
}

/** Records a few calls in `session`: two `echo` runs (allowed by the e2e config's `policies`) and a calculation. */
export async function recordCalls(request: APIRequestContext, session: string) {
  const echo1 = await postToolCall(request, {
    id: unique('call'),
    name: 'run_shell',
    arguments: { command: ['echo', 'one'] },
    sessionId: session,
  });
  const echo2 = await postToolCall(request, {
    id: unique('call'),
    name: 'run_shell',
    arguments: { command: ['echo', 'two'] },
    sessionId: session,
  });
  await postToolCall(request, {
    id: unique('call'),
    name: 'calculator',
    arguments: { expression: '6*7' },
    sessionId: session,
  });
  expect(echo1.status).toBe('succeeded');
  return [echo1.traceId, echo2.traceId];
}
