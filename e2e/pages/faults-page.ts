import { type APIRequestContext, expect, type Locator, type Page } from '@playwright/test';

export interface FaultRule {
  id: string;
  name: string;
  enabled: boolean;
  tool: string;
  session_id: string | null;
  kind: string;
  params: Record<string, unknown>;
  hits: number;
  active: boolean;
}

/** The Faults page: the bar (counts, Disable all, Delete all), the rule form and the rules table. */
export class FaultsPage {
  readonly bar: Locator;
  readonly form: Locator;
  readonly rows: Locator;
  readonly empty: Locator;
  readonly disableAll: Locator;
  readonly deleteAll: Locator;
  readonly filter: Locator;

  constructor(readonly page: Page) {
    this.bar = page.getByTestId('faults-bar');
    this.form = page.getByTestId('fault-form');
    this.rows = page.getByTestId('fault-row');
    this.empty = page.getByTestId('faults-empty');
    this.disableAll = page.getByTestId('faults-disable-all');
    this.deleteAll = page.getByTestId('faults-reset');
    this.filter = page.getByTestId('faults-filter');
  }

  async goto(search = '') {
    await this.page.goto(`/faults${search}`);
    await expect(this.page.getByTestId('faults-page')).toBeVisible();
  }

  row(name: string): Locator {
    return this.page.locator(`[data-testid="fault-row"][data-name="${name}"]`);
  }

  field(testId: string): Locator {
    return this.form.getByTestId(testId);
  }

  /** The server's complaint shown at a form field (`params.n`, `name`, `other`…). */
  fieldError(field: string): Locator {
    return this.form.getByTestId(`fault-error-${field}`);
  }
}

/** The nav's "Faults" link and its active-rules badge. */
export function faultsBadge(page: Page): Locator {
  return page.getByTestId('faults-badge');
}

/** Creates a rule through `POST /api/v1/faults`. */
export async function createRule(request: APIRequestContext, body: Record<string, unknown>): Promise<FaultRule> {
  const response = await request.post('/api/v1/faults', { data: body });
  expect(response.status(), await response.text()).toBe(201);
  return (await response.json()) as FaultRule;
}

/** `GET /api/v1/faults`. */
export async function listRules(request: APIRequestContext): Promise<{ faults: FaultRule[]; active: number }> {
  const response = await request.get('/api/v1/faults');
  expect(response.ok()).toBe(true);
  return (await response.json()) as { faults: FaultRule[]; active: number };
}
