import { expect, type Locator, type Page } from '@playwright/test';

/** The keyboard shortcuts dialog, opened with `?` on any page. */
export class ShortcutsDialog {
  readonly dialog: Locator;

  constructor(readonly page: Page) {
    this.dialog = page.getByTestId('shortcuts-dialog');
  }

  /** Presses `?` with the focus outside any field. */
  async openWithKey() {
    await this.page.locator('main').click({ position: { x: 2, y: 2 } });
    await this.page.keyboard.press('?');
    await expect(this.dialog).toBeVisible();
  }

  async closeWithEscape() {
    await this.page.keyboard.press('Escape');
    await expect(this.dialog).toBeHidden();
  }
}
