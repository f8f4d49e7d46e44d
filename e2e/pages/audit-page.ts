import { type APIRequestContext, expect, type Locator, type Page } from '@playwright/test';

export interface AuditEntryJson {
  seq: number;
  at: string;
  principal: { id: string; name: string; role: string };
  kind: string;
  target: string | null;
  detail: Record<string, unknown>;
  address: string | null;
  hash: string;
}

/**
 * The Audit page: the filters (kind, principal, target — kept in the URL), the entries table
 * (each row's summary, full detail behind a toggle, target link), Load more and Verify chain.
 */
export class AuditPage {
  readonly filters: Locator;
  readonly kind: Locator;
  readonly principal: Locator;
  readonly target: Locator;
  readonly clear: Locator;
  readonly rows: Locator;
  readonly empty: Locator;
  readonly count: Locator;
  readonly loadMore: Locator;
  readonly verify: Locator;
  /** "Chain intact: N entries" or "Chain broken at entry #seq"; `data-ok`, `data-entries`, `data-first-bad-seq`. */
  readonly verifyResult: Locator;
  readonly forbidden: Locator;

  constructor(readonly page: Page) {
    this.filters = page.getByTestId('audit-filters');
    this.kind = page.getByTestId('audit-kind');
    this.principal = page.getByTestId('audit-principal');
    this.target = page.getByTestId('audit-target');
    this.clear = page.getByTestId('audit-clear');
    this.rows = page.getByTestId('audit-row');
    this.empty = page.getByTestId('audit-empty');
    this.count = page.getByTestId('audit-count');
    this.loadMore = page.getByTestId('audit-load-more');
    this.verify = page.getByTestId('audit-verify');
    this.verifyResult = page.getByTestId('audit-verify-result');
    this.forbidden = page.getByTestId('audit-forbidden');
  }

  /** Opens `/audit` with filters in the query (`{ target: traceId }` is the trace page's link). */
  async goto(filters: { kind?: string; principal?: string; target?: string } = {}) {
    const search = new URLSearchParams(Object.entries(filters).filter(([, v]) => v) as [string, string][]).toString();
    await this.page.goto(`/audit${search ? `?${search}` : ''}`);
    await expect(this.page.getByTestId('audit-page')).toBeVisible();
  }

  /** The rows of one kind. */
  rowsOf(kind: string): Locator {
    return this.page.locator(`[data-testid="audit-row"][data-kind="${kind}"]`);
  }

  row(seq: number): Locator {
    return this.page.locator(`[data-testid="audit-row"][data-seq="${seq}"]`);
  }

  /** The one-line summary of a row's detail. */
  summary(row: Locator): Locator {
    return row.getByTestId('audit-summary');
  }

  /** Opens a row's full detail and returns the JSON block shown under it. */
  async expandDetail(row: Locator): Promise<Locator> {
    await row.getByTestId('audit-detail-toggle').click();
    const json = row.locator('xpath=following-sibling::tr[1]').getByTestId('audit-detail-json');
    await expect(json).toBeVisible();
    return json;
  }

  /** Runs Verify chain and waits for its verdict. */
  async verifyChain(): Promise<Locator> {
    await this.verify.click();
    await expect(this.verifyResult).toBeVisible();
    return this.verifyResult;
  }
}

/** `GET /api/v1/audit` (newest first). */
export async function listAudit(
  request: APIRequestContext,
  query: Record<string, string> = {},
  token?: string,
): Promise<{ entries: AuditEntryJson[]; next_cursor: string | null }> {
  const response = await request.get(`/api/v1/audit?${new URLSearchParams(query)}`, {
    ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
  });
  expect(response.ok(), await response.text()).toBe(true);
  return (await response.json()) as { entries: AuditEntryJson[]; next_cursor: string | null };
}
