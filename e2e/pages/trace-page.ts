import { expect, type Locator, type Page } from '@playwright/test';

/** One trace: header, pipeline, waterfall, arguments, result tabs, attempts, error. */
export class TracePage {
  readonly status: Locator;
  readonly stages: Locator;
  readonly arguments: Locator;
  readonly errorPanel: Locator;

  constructor(readonly page: Page) {
    this.status = page.getByTestId('trace-status');
    this.stages = page.getByTestId('stage');
    this.arguments = page.getByTestId('arguments');
    this.errorPanel = page.getByTestId('error-panel');
  }

  async goto(traceId: string) {
    await this.page.goto(`/traces/${traceId}`);
    await expect(this.page.getByTestId('trace-view')).toBeVisible();
  }

  stage(name: string): Locator {
    return this.page.locator(`[data-testid="stage"][data-stage="${name}"]`);
  }

  invalidField(path: string): Locator {
    return this.arguments.locator(`[data-path="${path}"][data-invalid]`);
  }

  async openTab(key: 'output' | 'stdout' | 'stderr' | 'exit' | 'model') {
    await this.page.getByTestId(`result-tab-${key}`).click();
    return this.page.getByTestId(`result-panel-${key}`);
  }
}
