import { expect, test } from '@playwright/test';
import { unique } from '../pages/api';
import { ApprovalsPage, pendingWrite } from '../pages/approvals-page';
import { TracePage } from '../pages/trace-page';
import { shot, THEMES, themedPage } from './screens';

test('the approval queue and an approved trace, light and dark', async ({ browser, request }) => {
  for (const theme of THEMES) {
    const session = unique('sess-agent');
    const { context, page } = await themedPage(browser, theme);
    const approvals = new ApprovalsPage(page);
    await approvals.goto();
    const edited = await pendingWrite(request, 'notes/plan.md', '# Plan\n- ship the queue\n- sleep', session);
    const secret = await pendingWrite(
      request,
      'config/settings.json',
      '{"debug": true, "token": "sk-live-abcdefghijklmnop1234"}',
      session,
    );
    await expect(approvals.card(edited)).toBeVisible();
    await approvals.card(edited).getByTestId('edit').click();
    await approvals.editField(edited, 'content').fill('# Plan\n- ship the queue\n- write the e2e tests\n- sleep');
    await page.screenshot({ path: shot(`approvals-queue-${theme}`), fullPage: true });
    await approvals.card(edited).getByTestId('approve-edited').click();
    await expect(approvals.card(edited)).toHaveCount(0);
    await page.screenshot({ path: shot(`approvals-after-${theme}`) });

    const trace = new TracePage(page);
    await trace.goto(edited);
    await expect(trace.status).toHaveAttribute('data-status', 'succeeded');
    await page.getByTestId('approval-panel').scrollIntoViewIfNeeded();
    await page.screenshot({ path: shot(`approvals-trace-${theme}`), fullPage: true });
    await trace.goto(secret);
    await expect(page.getByTestId('approval-panel')).toHaveAttribute('data-decision', 'pending');
    await page.getByTestId('panel-deny').click();
    await page.screenshot({ path: shot(`approvals-trace-pending-${theme}`) });
    await context.close();
  }
});
