import { expect, type Locator, type Page } from '@playwright/test';

/** The traces list (home page). */
export class TracesPage {
  readonly rows: Locator;
  readonly liveIndicator: Locator;
  readonly statusFilter: Locator;
  readonly toolFilter: Locator;
  readonly sessionFilter: Locator;
  readonly textFilter: Locator;

  constructor(readonly page: Page) {
    this.rows = page.getByTestId('trace-row');
    this.liveIndicator = page.getByTestId('live-indicator');
    this.statusFilter = page.getByTestId('filter-status');
    this.toolFilter = page.getByTestId('filter-tool');
    this.sessionFilter = page.getByTestId('filter-session');
    this.textFilter = page.getByTestId('filter-text');
  }

  async goto(search = '') {
    await this.page.goto(`/${search}`);
    await expect(this.page.getByTestId('traces-table')).toBeVisible();
  }

  row(traceId: string): Locator {
    return this.page.locator(`[data-testid="trace-row"][data-trace-id="${traceId}"]`);
  }

  async waitUntilLive() {
    await expect(this.liveIndicator).toHaveAttribute('data-state', 'live');
  }

  async filterBySession(session: string) {
    await this.sessionFilter.fill(session);
    await this.sessionFilter.press('Enter');
    await expect(this.page).toHaveURL(new RegExp(`session=${encodeURIComponent(session)}`));
  }
}
