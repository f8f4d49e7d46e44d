import { expect, type Locator, type Page } from '@playwright/test';

/** The compare view of two calls (`/traces/<a>/compare/<b>`). */
export class ComparePage {
  readonly view: Locator;
  readonly argumentsDiff: Locator;
  readonly outputDiff: Locator;

  constructor(readonly page: Page) {
    this.view = page.getByTestId('compare-view');
    this.argumentsDiff = page.getByTestId('arguments-diff');
    this.outputDiff = page.getByTestId('output-diff');
  }

  async goto(a: string, b: string) {
    await this.page.goto(`/traces/${a}/compare/${b}`);
    await expect(this.view).toBeVisible();
  }

  /** A changed / added / removed path of the structural diff of `section` (`arguments` or `output`). */
  pathChange(section: 'arguments' | 'output', path: string): Locator {
    return this.page.locator(`[data-testid="${section}-diff"] [data-testid="path-change"][data-path="${path}"]`);
  }

  verdict(what: 'outcome' | 'output' | 'arguments'): Locator {
    return this.page.getByTestId(`verdict-${what}`);
  }

  summaryRow(field: string): Locator {
    return this.page.locator(`[data-testid="compare-row"][data-field="${field}"]`);
  }
}

/** The comparison of a session and its replay (`/sessions/<a>/compare/<b>`). */
export class SessionComparePage {
  readonly view: Locator;
  readonly pairs: Locator;
  readonly counts: Locator;

  constructor(readonly page: Page) {
    this.view = page.getByTestId('session-compare');
    this.pairs = page.getByTestId('session-pair');
    this.counts = page.getByTestId('session-compare-counts');
  }

  pair(tool: string): Locator {
    return this.page.locator(`[data-testid="session-pair"][data-tool="${tool}"]`);
  }
}
