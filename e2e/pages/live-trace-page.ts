import { expect, type Locator, type Page } from '@playwright/test';
import { TracePage } from './trace-page';

/** A trace page while its call runs: what is happening now, streamed output, cancel. */
export class LiveTracePage extends TracePage {
  readonly view: Locator;
  readonly activity: Locator;
  readonly elapsed: Locator;
  readonly cancelButton: Locator;
  readonly liveIndicator: Locator;
  readonly stdout: Locator;
  readonly stderr: Locator;
  readonly attemptRows: Locator;
  readonly waterfallLimit: Locator;
  readonly errorCode: Locator;

  constructor(page: Page) {
    super(page);
    this.view = page.getByTestId('trace-view');
    this.activity = page.getByTestId('trace-activity');
    this.elapsed = page.getByTestId('trace-elapsed');
    this.cancelButton = page.getByTestId('cancel-call');
    this.liveIndicator = page.getByTestId('live-indicator');
    this.stdout = page.getByTestId('live-stdout');
    this.stderr = page.getByTestId('live-stderr');
    this.attemptRows = page.getByTestId('attempt-row');
    this.waterfallLimit = page.getByTestId('waterfall-limit');
    this.errorCode = page.getByTestId('error-code');
  }

  attempt(outcome: string): Locator {
    return this.page.locator(`[data-testid="attempt-row"][data-outcome="${outcome}"]`);
  }

  async waitUntilLive() {
    await expect(this.liveIndicator).toHaveAttribute('data-state', 'live');
  }
}
