import { expect, type Locator, test } from '@playwright/test';
import { postToolCall, unique } from './pages/api';
import { ApprovalsPage } from './pages/approvals-page';
import { SessionViewPage } from './pages/sessions-page';
import { TracePage } from './pages/trace-page';
import { TracesPage } from './pages/traces-page';

/**
 * What a reviewer reads is what runs: a path holding a right-to-left override (U+202E) reads as
 * `report-hs.pdf` where it is shown raw. Every view shows it as a marked `\u202E` whose title says
 * what the character does, and never the character itself: the approval card, the trace, the
 * traces list and the session.
 */
const RLO = '\u202E';
const ZWSP = '\u200B';

/** The escape chip of `code` (`U+202E`) inside `scope`. */
const chip = (scope: Locator, code: string) => scope.locator(`[data-testid="invisible-char"][data-code="${code}"]`);

/** The text `scope` shows holds no raw control character of these. */
async function expectNoRaw(scope: Locator) {
  expect(await scope.textContent()).not.toMatch(/[\u202E\u200B]/);
}

test('a path with a right-to-left override is shown escaped on the approval card, the trace, the list and the session', async ({
  page,
  request,
}) => {
  const sessionId = unique('sess-invisible');
  const file = `notes/${unique('report')}-${RLO}fdp.sh`;
  const call = await postToolCall(request, {
    id: unique('call_rlo'),
    name: 'write_file',
    arguments: { path: file, content: 'echo hi' },
    wait: false,
    sessionId,
  });
  expect(call.status).toBe('awaiting_approval');
  // A tool name that reads as read_file, with a zero width space in it (an unknown tool).
  const lookalike = await postToolCall(request, {
    id: unique('call_zwsp'),
    name: `read${ZWSP}_file`,
    arguments: { path: 'notes/a.txt' },
    sessionId,
  });

  // The approval card: the path's override is a marked escape with its name in the title.
  const approvals = new ApprovalsPage(page);
  await approvals.goto();
  const card = approvals.card(call.traceId);
  await expect(card).toBeVisible();
  const args = card.getByTestId('approval-arguments');
  await expect(chip(args, 'U+202E')).toHaveText('\\u202E');
  await expect(chip(args, 'U+202E')).toHaveAttribute('title', /RIGHT-TO-LEFT OVERRIDE/);
  await expect(args).toContainText('fdp.sh');
  await expect(card.getByTestId('approval-invisible')).toBeVisible();
  await expectNoRaw(args);

  // Cancelled (the queue stays clean for other tests); the trace keeps the arguments.
  const cancelled = await request.post(`/api/v1/traces/${call.traceId}/cancel`, { data: {} });
  expect(cancelled.ok()).toBe(true);
  await expect(card).toHaveCount(0);

  const trace = new TracePage(page);
  await trace.goto(call.traceId);
  const tree = page.getByTestId('arguments-tree');
  await expect(chip(tree, 'U+202E')).toHaveText('\\u202E');
  await expect(chip(tree, 'U+202E')).toHaveAttribute('title', /RIGHT-TO-LEFT OVERRIDE/);
  await expectNoRaw(tree);

  // The lookalike tool's trace: its name in the header shows the zero width space.
  await trace.goto(lookalike.traceId);
  const tool = page.getByTestId('trace-tool');
  await expect(chip(tool, 'U+200B')).toHaveText('\\u200B');
  await expectNoRaw(tool);

  // The traces list: the arguments summary and the tool name.
  const traces = new TracesPage(page);
  await traces.goto(`?session=${encodeURIComponent(sessionId)}`);
  const row = traces.row(call.traceId);
  await expect(chip(row.getByTestId('row-arguments'), 'U+202E')).toBeVisible();
  await expectNoRaw(row.getByTestId('row-arguments'));
  await expect(chip(traces.row(lookalike.traceId), 'U+200B')).toHaveCount(1);

  // The session: both calls' tool names and arguments as they are.
  const session = new SessionViewPage(page);
  await session.goto(sessionId);
  const calls = page.getByTestId('session-call');
  await expect(
    chip(calls.filter({ has: page.locator(`a[href="/traces/${lookalike.traceId}"]`) }), 'U+200B'),
  ).toHaveCount(1);
  await expectNoRaw(calls.first());
});
