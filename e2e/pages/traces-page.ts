import { expect, type Locator, type Page } from '@playwright/test';

/** The traces list (home page). */
export class TracesPage {
  readonly rows: Locator;
  readonly liveIndicator: Locator;
  readonly statusFilter: Locator;
  readonly toolFilter: Locator;
  readonly sessionFilter: Locator;
  readonly textFilter: Locator;
  /** The inline message shown when the URL's page cursor was refused. */
  readonly invalidCursorNotice: Locator;
  /** The outcome of a row action (deleted, cancelled...). */
  readonly notice: Locator;
  readonly total: Locator;
  readonly exportLink: Locator;

  constructor(readonly page: Page) {
    this.rows = page.getByTestId('trace-row');
    this.liveIndicator = page.getByTestId('live-indicator');
    this.statusFilter = page.getByTestId('filter-status');
    this.toolFilter = page.getByTestId('filter-tool');
    this.sessionFilter = page.getByTestId('filter-session');
    this.textFilter = page.getByTestId('filter-text');
    this.invalidCursorNotice = page.getByTestId('invalid-cursor');
    this.notice = page.getByTestId('list-notice');
    this.total = page.getByTestId('traces-total');
    this.exportLink = page.getByTestId('export-jsonl');
  }

  async goto(search = '') {
    await this.page.goto(`/${search}`);
    await expect(this.page.getByTestId('traces-table')).toBeVisible();
  }

  row(traceId: string): Locator {
    return this.page.locator(`[data-testid="trace-row"][data-trace-id="${traceId}"]`);
  }

  selectedRow(): Locator {
    return this.page.locator('[data-testid="trace-row"][aria-selected="true"]');
  }

  async waitUntilLive() {
    await expect(this.liveIndicator).toHaveAttribute('data-state', 'live');
  }

  async filterBySession(session: string) {
    await this.sessionFilter.fill(session);
    await this.sessionFilter.press('Enter');
    await expect(this.page).toHaveURL(new RegExp(`session=${encodeURIComponent(session)}`));
  }

  /** Opens a row's ⋯ menu and returns it. */
  async openRowMenu(traceId: string): Promise<Locator> {
    await this.row(traceId).getByTestId('row-menu-button').click();
    const menu = this.page.getByTestId('row-menu');
    await expect(menu).toBeVisible();
    return menu;
  }

  /** How far the page scrolls sideways (0 when it fits the viewport). */
  async horizontalOverflow(): Promise<number> {
    return this.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  }
}
