import { expect, test } from '@playwright/test';
import { unique } from '../pages/api';
import { PolicyPage, recordCalls } from '../pages/policy-page';
import { shot, themedPage } from './screens';

test('the policy page with a draft preview', async ({ browser, request }) => {
  const session = unique('sess-policy-screens');
  await recordCalls(request, session);
  for (const [theme, width] of [
    ['light', 1440],
    ['dark', 1440],
    ['light', 390],
  ] as const) {
    const { context, page } = await themedPage(browser, theme, width);
    const policy = new PolicyPage(page);
    await policy.goto();
    await policy.fillRule({ list: 'deny', tool: 'run_shell', specifier: 'echo *', session });
    await expect(policy.changedCount).toHaveText('2');
    await policy.fillRule({ list: 'ask', tool: 'calculator', session });
    await expect(policy.changedCount).toHaveText('3');
    await page.screenshot({ path: shot(width > 500 ? `policy-${theme}` : `policy-${theme}-${width}`), fullPage: true });
    await context.close();
  }
});
