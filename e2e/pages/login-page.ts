import { expect, type Locator, type Page } from '@playwright/test';

/** The login form of a Toolscope with keys (or TOOLSCOPE_TOKEN). */
export class LoginPage {
  readonly form: Locator;
  readonly token: Locator;
  readonly submit: Locator;
  readonly error: Locator;

  constructor(readonly page: Page) {
    this.form = page.getByTestId('login');
    this.token = page.getByLabel('Key');
    this.submit = page.getByRole('button', { name: 'Log in' });
    this.error = page.getByTestId('login-error');
  }

  async expectShown() {
    await expect(this.page).toHaveURL(/\/login(\?|$)/);
    await expect(this.form).toBeVisible();
  }

  async logIn(token: string) {
    await this.token.fill(token);
    await this.submit.click();
  }
}
