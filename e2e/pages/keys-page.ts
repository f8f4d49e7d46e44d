import { type APIRequestContext, expect, type Locator, type Page } from '@playwright/test';

export interface KeyJson {
  id: string;
  name: string;
  role: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  permissions?: { allow: string[]; ask: string[]; deny: string[] };
  tools?: string[];
}

export interface NewKey {
  name: string;
  role: 'agent' | 'viewer' | 'reviewer' | 'admin';
  tools?: string;
  allow?: string;
  ask?: string;
  deny?: string;
}

/**
 * The Keys page: the bar (counts, New key), the New key form, the one-time token panel (with
 * "Log in with this key" when the key ended local mode) and the keys table with Revoke.
 */
export class KeysPage {
  readonly bar: Locator;
  readonly count: Locator;
  readonly newKey: Locator;
  readonly form: Locator;
  readonly create: Locator;
  readonly rows: Locator;
  readonly empty: Locator;
  readonly forbidden: Locator;
  /** The one-time token panel. */
  readonly tokenPanel: Locator;
  readonly tokenValue: Locator;
  readonly copyToken: Locator;
  readonly dismissToken: Locator;
  readonly localModeEnded: Locator;
  readonly logInWithKey: Locator;
  readonly localModeNote: Locator;
  readonly agentFirstWarning: Locator;

  constructor(readonly page: Page) {
    this.bar = page.getByTestId('keys-bar');
    this.count = page.getByTestId('keys-count');
    this.newKey = page.getByTestId('key-new');
    this.form = page.getByTestId('key-form');
    this.create = page.getByTestId('key-create');
    this.rows = page.getByTestId('key-row');
    this.empty = page.getByTestId('keys-empty');
    this.forbidden = page.getByTestId('keys-forbidden');
    this.tokenPanel = page.getByTestId('new-key-token');
    this.tokenValue = page.getByTestId('new-key-token-value');
    this.copyToken = page.getByTestId('new-key-copy');
    this.dismissToken = page.getByTestId('new-key-dismiss');
    this.localModeEnded = page.getByTestId('local-mode-ended');
    this.logInWithKey = page.getByTestId('login-with-key-submit');
    this.localModeNote = page.getByTestId('key-local-mode-note');
    this.agentFirstWarning = page.getByTestId('key-agent-first-warning');
  }

  async goto() {
    await this.page.goto('/keys');
    await expect(this.page.getByTestId('keys-page')).toBeVisible();
  }

  /** A form field: `key-name`, `key-role`, `key-tools`, `key-allow`, `key-ask`, `key-deny`. */
  field(testId: string): Locator {
    return this.form.getByTestId(testId);
  }

  /** The server's complaint shown at a form field (`name`, `role`, `tools`, `allow`, `ask`, `deny`, `other`). */
  fieldError(field: string): Locator {
    return this.form.getByTestId(`key-error-${field}`);
  }

  /** Opens the form if needed, fills it and creates the key (the answer may be a refusal: check after). */
  async createKey(key: NewKey) {
    if (!(await this.form.isVisible())) await this.newKey.click();
    await this.field('key-name').fill(key.name);
    await this.field('key-role').selectOption(key.role);
    await this.field('key-tools').fill(key.tools ?? '');
    for (const list of ['allow', 'ask', 'deny'] as const) await this.field(`key-${list}`).fill(key[list] ?? '');
    await this.create.click();
  }

  /** Creates a key through the form and returns its token from the one-time panel. */
  async createKeyAndReadToken(key: NewKey): Promise<string> {
    await this.createKey(key);
    await expect(this.tokenPanel).toBeVisible();
    return ((await this.tokenValue.textContent()) ?? '').trim();
  }

  /** A key's row by its name (an active key's name is unique; a revoked one may share it). */
  row(name: string): Locator {
    return this.page.locator(`[data-testid="key-row"][data-name="${name}"]`);
  }

  rowById(id: string): Locator {
    return this.page.locator(`[data-testid="key-row"][data-key-id="${id}"]`);
  }

  /** Revokes through the row's button and its confirmation. */
  async revoke(row: Locator) {
    await row.getByTestId('key-revoke').click();
    await row.getByTestId('key-revoke-confirm').click();
    await expect(row).toHaveAttribute('data-state', 'revoked');
  }
}

/** Creates a key through `POST /api/v1/keys`: the key and its token. */
export async function createKeyThroughApi(
  request: APIRequestContext,
  body: { name: string; role: string; tools?: string[]; permissions?: Record<string, string[]> },
  token?: string,
): Promise<{ key: KeyJson; token: string }> {
  const response = await request.post('/api/v1/keys', {
    data: body,
    ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
  });
  expect(response.status(), await response.text()).toBe(201);
  return (await response.json()) as { key: KeyJson; token: string };
}

/** `GET /api/v1/keys`. */
export async function listKeys(request: APIRequestContext, token?: string): Promise<KeyJson[]> {
  const response = await request.get('/api/v1/keys', token ? { headers: { authorization: `Bearer ${token}` } } : {});
  expect(response.ok(), await response.text()).toBe(true);
  return ((await response.json()) as { keys: KeyJson[] }).keys;
}
