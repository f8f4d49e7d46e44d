import { expect, type Locator, type Page } from '@playwright/test';

/** A tool's page: definition, playground, last runs. */
export class ToolPage {
  readonly run: Locator;
  readonly result: Locator;

  constructor(readonly page: Page) {
    this.run = page.getByTestId('playground-run');
    this.result = page.getByTestId('playground-result');
  }

  async goto(tool: string) {
    await this.page.goto(`/tools/${tool}`);
    await expect(this.page.getByTestId('playground')).toBeVisible();
  }

  field(path: string): Locator {
    return this.page.locator(`[data-field="${path}"]`);
  }

  async runAndWait() {
    await this.run.click();
    await expect(this.result).toBeVisible();
  }
}
