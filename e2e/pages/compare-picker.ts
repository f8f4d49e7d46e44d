import { expect, type Locator, type Page } from '@playwright/test';

/** The "Compare with…" dialog of the trace and session pages. */
export class ComparePickerDialog {
  readonly button: Locator;
  readonly dialog: Locator;
  readonly search: Locator;
  readonly candidates: Locator;

  constructor(readonly page: Page) {
    this.button = page.getByTestId('compare-picker-button');
    this.dialog = page.getByTestId('compare-picker');
    this.search = this.dialog.getByTestId('compare-picker-search');
    this.candidates = this.dialog.getByTestId('compare-candidate');
  }

  async open() {
    await this.button.click();
    await expect(this.dialog).toBeVisible();
    await expect(this.search).toBeFocused();
  }

  /** The candidate `id`, in the group `group` (`original`, `replays`, `session`, `recent`, `search`) when given. */
  candidate(id: string, group?: string): Locator {
    const scope = group ? this.dialog.locator(`section[data-group="${group}"]`) : this.dialog;
    return scope.locator(`[data-testid="compare-candidate"][data-id="${id}"]`);
  }
}
