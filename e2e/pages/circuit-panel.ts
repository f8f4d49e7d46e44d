import { expect, type Locator, type Page } from '@playwright/test';

/** The circuit breaker panel of a tool's page: its state, each open breaker, and Reset. */
export class CircuitPanel {
  readonly panel: Locator;

  constructor(readonly page: Page) {
    this.panel = page.getByTestId('circuit-panel');
  }

  async goto(tool: string) {
    await this.page.goto(`/tools/${encodeURIComponent(tool)}`);
    await expect(this.panel).toBeVisible();
  }

  /** The card of the breaker kept for `key` (a host:port for http_request). */
  circuit(key: string): Locator {
    return this.panel.locator(`[data-testid="circuit"][data-key="${key}"]`);
  }

  countdown(key: string): Locator {
    return this.circuit(key).getByTestId('circuit-countdown');
  }

  failures(key: string): Locator {
    return this.circuit(key).getByTestId('circuit-failure');
  }

  async reset(key: string) {
    await this.circuit(key).getByTestId('circuit-reset').click();
  }
}
