import { expect, test } from '@playwright/test';
import { postToolCall, unique } from './pages/api';
import { SessionViewPage } from './pages/sessions-page';

/** Posts a calculator call into `session`; returns its trace id. */
async function calculate(request: Parameters<typeof postToolCall>[0], session: string, expression: string) {
  const call = await postToolCall(request, {
    id: unique('call'),
    name: 'calculator',
    arguments: { expression },
    sessionId: session,
  });
  expect(call.status).toBe('succeeded');
  return call.traceId;
}

test('the session timeline collapses an idle gap, zooms by dragging, resets, and groups repeated calls', async ({
  page,
  request,
}) => {
  const session = unique('sess-zoom');
  // Four loops of the same call three times each: four "repeated call" findings.
  const started = Date.now();
  const before: string[] = [];
  for (const expression of ['1+1', '2+2', '3+3', '4+4']) {
    for (let i = 0; i < 3; i++) before.push(await calculate(request, session, expression));
  }
  // Then nothing runs for a while: well over the 1 s an idle gap needs, and most of the session
  // (twice as long as the calls before it took) so that collapsing is on by default.
  const idleMs = Math.min(8_000, Math.max(3_000, 2 * (Date.now() - started)));
  await new Promise((resolve) => setTimeout(resolve, idleMs));
  const after = [await calculate(request, session, '5*5'), await calculate(request, session, '6*6')];
  const all = before.length + after.length;

  const view = new SessionViewPage(page);
  await view.goto(session);
  await expect(view.bars).toHaveCount(all);

  // The gap is one narrow break mark, labelled with how long nothing ran.
  const collapse = page.getByTestId('timeline-collapse-gaps');
  await expect(collapse).toBeChecked();
  await expect(view.timeline).toHaveAttribute('data-collapsed', 'true');
  await expect(page.getByTestId('timeline-break')).toHaveCount(1);
  await expect(page.getByTestId('timeline-axis')).toContainText('idle');
  await collapse.uncheck();
  await expect(page.getByTestId('timeline-break')).toHaveCount(0);
  await collapse.check();
  await expect(page.getByTestId('timeline-break')).toHaveCount(1);

  // Drag across the first part of the axis: only the calls before the gap in that range stay.
  const axis = page.getByTestId('timeline-axis');
  const box = await axis.boundingBox();
  if (!box) throw new Error('the timeline axis is not laid out');
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width * 0.01, y);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.15, y, { steps: 4 });
  await expect(page.getByTestId('timeline-selection')).toBeVisible();
  await page.mouse.move(box.x + box.width * 0.3, y, { steps: 4 });
  await page.mouse.up();
  await expect(page).toHaveURL(new RegExp(`/sessions/${session}$`));
  await expect(page.getByTestId('timeline-selection')).toHaveCount(0);
  const reset = page.getByTestId('timeline-reset-zoom');
  await expect(reset).toBeVisible();
  await expect(page.getByTestId('timeline-range')).toContainText('→');
  await expect(view.timeline).toHaveAttribute('data-zoomed', 'true');
  await expect(view.bar(after[0] ?? '')).toHaveCount(0);
  await expect.poll(() => view.bars.count()).toBeLessThan(all);

  // A double-click shows the whole session again.
  await axis.dblclick();
  await expect(reset).toHaveCount(0);
  await expect(view.bars).toHaveCount(all);

  // So does `0` after another drag, and so does the button.
  await page.mouse.move(box.x + box.width * 0.02, y);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.2, y, { steps: 6 });
  await page.mouse.up();
  await expect(reset).toBeVisible();
  await page.keyboard.press('0');
  await expect(reset).toHaveCount(0);
  await expect(view.bars).toHaveCount(all);

  // The four loops are one line with its count; it opens to the four findings with links to their calls.
  const groups = page.getByTestId('finding-group');
  await expect(groups).toHaveCount(1);
  const repeated = groups.and(page.locator('[data-kind="repeated_call"]'));
  await expect(repeated).toHaveAttribute('data-count', '4');
  await expect(repeated).toContainText('Repeated calls: 4 groups');
  await expect(repeated).toContainText('12 calls');
  await expect(view.findings).toHaveCount(0);
  const toggle = repeated.getByTestId('finding-group-toggle');
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  await expect(view.findings).toHaveCount(4);
  await expect(view.findings.first()).toContainText('calculator called 3×');
  await expect(view.findings.first().getByRole('link')).toHaveCount(3);
  await expect(page.locator('[data-testid="timeline-bar"][data-flagged="true"]')).toHaveCount(12);

  // A click (no drag) on a bar still opens its call.
  await view.bar(after[1] ?? '').click();
  await expect(page).toHaveURL(new RegExp(`/traces/${after[1]}$`));
});
