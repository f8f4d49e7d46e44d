import { expect, test } from '@playwright/test';
import { postToolCall, unique } from '../pages/api';
import { ComparePage, openTrace, recordChangingSession } from '../pages/compare-page';
import { shot, THEMES, themedPage } from './screens';

test('the compare view, the session comparison and the replay panel, light and dark', async ({ browser, request }) => {
  const { session } = await recordChangingSession(request);
  const edited = await postToolCall(request, {
    id: unique('call'),
    name: 'run_shell',
    arguments: { command: ['sh', '-c', 'echo "status: ok"; echo "items: 3"; echo "token=abc"; date +%N'] },
    sessionId: session,
  });
  const replay = await request.post(`/api/v1/traces/${edited.traceId}/replay`, {
    data: {
      arguments: { command: ['sh', '-c', 'echo "status: ok"; echo "items: 4"; echo "warn: slow" >&2; date +%N'] },
    },
  });
  expect(replay.ok()).toBe(true);
  const replayId = ((await replay.json()) as { trace_id: string }).trace_id;
  const sessionReplay = await request.post(`/api/v1/sessions/${session}/replay`, { data: {} });
  expect(sessionReplay.ok()).toBe(true);
  const newSession = ((await sessionReplay.json()) as { session_id: string }).session_id;

  for (const theme of THEMES) {
    for (const layout of ['split', 'unified'] as const) {
      const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
      await context.addInitScript(
        ({ t, l }) => {
          localStorage.setItem('toolscope-theme', t);
          localStorage.setItem('toolscope-diff-layout', l);
        },
        { t: theme, l: layout },
      );
      const page = await context.newPage();
      const compare = new ComparePage(page);
      await compare.goto(edited.traceId, replayId);
      await expect(page.getByTestId('arguments-diff-lines')).toHaveAttribute('data-layout', layout);
      await page.screenshot({ path: shot(`compare-${layout}-${theme}`), fullPage: true });
      if (layout === 'split') {
        await page.goto(`/sessions/${session}/compare/${newSession}`);
        await expect(page.getByTestId('session-pair').first()).toBeVisible();
        await page.screenshot({ path: shot(`session-compare-${theme}`), fullPage: true });
        await openTrace(page, edited.traceId);
        await page.keyboard.press('e');
        await expect(page.getByTestId('replay-panel')).toBeVisible();
        await page.screenshot({ path: shot(`replay-panel-${theme}`) });
      }
      await context.close();
    }
  }
});

test('the compare view on a phone', async ({ browser, request }) => {
  const original = await postToolCall(request, {
    id: unique('call'),
    name: 'run_shell',
    arguments: {
      command: ['sh', '-c', 'echo "a fairly long line of output that has to wrap on a phone screen"; date +%N'],
    },
    sessionId: unique('sess-phone'),
  });
  const replay = await request.post(`/api/v1/traces/${original.traceId}/replay`, { data: {} });
  expect(replay.ok()).toBe(true);
  const replayId = ((await replay.json()) as { trace_id: string }).trace_id;
  const { context, page } = await themedPage(browser, 'light', 390);
  await new ComparePage(page).goto(original.traceId, replayId);
  await expect(page.getByTestId('stdout-diff')).toBeVisible();
  await page.screenshot({ path: shot('compare-phone'), fullPage: true });
  await context.close();
});
