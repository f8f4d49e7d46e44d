import { expect, test } from '@playwright/test';
import { ownAppServer } from '../app-server';
import { LoginPage } from '../pages/login-page';
import { shot, THEMES } from './screens';

const TOKEN = 'e2e-token-0123456789abcdef';

test.describe('a Toolscope with a token', () => {
  const app = ownAppServer('toolscope-screens-token-', { timeoutMs: 60_000, env: { TOOLSCOPE_TOKEN: TOKEN } });

  test('the login page, a wrong token, and the logged-in header, light and dark', async ({ page }) => {
    for (const scheme of THEMES) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(`${app.base}/`);
      const login = new LoginPage(page);
      await login.expectShown();
      await expect(page.locator('html')).toHaveClass(scheme === 'dark' ? /\bdark\b/ : /^(?!.*\bdark\b)/);
      await page.screenshot({ path: shot(`login-${scheme}`), fullPage: true });
      await login.logIn('wrong-token-wrong');
      await expect(login.error).toBeVisible();
      await page.screenshot({ path: shot(`login-wrong-${scheme}`), fullPage: true });
      await login.logIn(TOKEN);
      await expect(page.getByRole('button', { name: 'Log out' })).toBeVisible();
      await page.screenshot({ path: shot(`logged-in-header-${scheme}`) });
      await page.getByRole('button', { name: 'Log out' }).click();
      await login.expectShown();
    }
  });
});
