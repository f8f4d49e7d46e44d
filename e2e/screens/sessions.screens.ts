import { expect, test } from '@playwright/test';
import { recordAgentRun, SessionsPage, SessionViewPage } from '../pages/sessions-page';
import { shot, THEMES, themedPage } from './screens';

test('the sessions page and a session view, light and dark', async ({ browser, request }) => {
  const run = await recordAgentRun(request);
  for (const theme of THEMES) {
    const { context, page } = await themedPage(browser, theme);
    const list = new SessionsPage(page);
    await list.goto();
    await expect(list.row(run.session)).toBeVisible();
    await page.screenshot({ path: shot(`sessions-${theme}`) });
    const view = new SessionViewPage(page);
    await view.goto(run.session);
    await view.bar(run.waiting).hover();
    await page.screenshot({ path: shot(`session-view-${theme}`), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: shot(`session-view-${theme}-390`), fullPage: true });
    await context.close();
  }
});
