import { type APIRequestContext, expect, test } from '@playwright/test';
import { postToolCall, unique } from './pages/api';
import { ApprovalsPage, pendingWrite } from './pages/approvals-page';
import { TracePage } from './pages/trace-page';

// A loopback Toolscope without keys is in local mode: its one person decides, as `local`.
const REVIEWER = 'local';

async function pendingCount(request: APIRequestContext): Promise<number> {
  const body = (await (await request.get('/api/v1/approvals')).json()) as { approvals: unknown[] };
  return body.approvals.length;
}

test('a pending write appears live with the badge counting it, is approved with edits, and the trace shows the diff', async ({
  page,
  request,
}) => {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  const approvals = new ApprovalsPage(page);
  await approvals.goto();
  const file = `notes/${unique('edited')}.txt`;
  const traceId = await pendingWrite(request, file, 'written by the model', unique('sess-approve'));

  // Live: no reload. The nav badge shows the queue's size as the API reports it.
  const card = approvals.card(traceId);
  await expect(card).toBeVisible();
  await expect(card.getByRole('heading', { name: 'write_file' })).toBeVisible();
  await expect(card.getByTestId('approval-rule')).toContainText('default for write: ask');
  await expect(card.getByTestId('approval-arguments')).toContainText('written by the model');
  await expect(card.getByTestId('waited')).toContainText(/waited \d+:\d\d/);
  await expect(card.getByTestId('expires')).toContainText(/expires in \d+:\d\d/);
  await expect
    .poll(async () => {
      const shown = await approvals.badge().getAttribute('data-count');
      return shown !== null && Number(shown) >= 1 && Number(shown) === (await pendingCount(request));
    })
    .toBe(true);

  // Edit in the schema form, approve with the edits: the call leaves the queue.
  await card.getByTestId('edit').click();
  const content = approvals.editField(traceId, 'content');
  await expect(content).toHaveValue('written by the model');
  await content.fill('edited by a person');
  await card.getByTestId('approve-edited').click();
  await expect(card).toHaveCount(0);
  await expect(approvals.log.locator(`[data-trace-id="${traceId}"]`)).toContainText('Approved with edits');

  // What ran is the edit: once the call has finished (the decision's answer comes when it is
  // recorded, as the call starts), read the file back through the API.
  await expect
    .poll(async () => (await (await request.get(`/api/v1/traces/${traceId}`)).json()).status)
    .toBe('succeeded');
  const read = await postToolCall(request, { id: unique('call_read'), name: 'read_file', arguments: { path: file } });
  expect(read.status).toBe('succeeded');
  expect(JSON.stringify(read.output)).toContain('edited by a person');
  expect(JSON.stringify(read.output)).not.toContain('written by the model');

  // The trace: who approved, with edits, and the diff against what the model sent.
  const trace = new TracePage(page);
  await trace.goto(traceId);
  await expect(trace.status).toHaveAttribute('data-status', 'succeeded');
  await expect(trace.stage('permission')).toContainText(`approved by ${REVIEWER} with edited arguments`);
  const panel = page.getByTestId('approval-panel');
  await expect(panel).toHaveAttribute('data-decision', 'approved');
  await expect(panel.getByTestId('approval-by')).toHaveText(REVIEWER);
  const diff = panel.getByTestId('arguments-diff');
  await expect(diff.locator('[data-diff="removed"]')).toContainText('written by the model');
  await expect(diff.locator('[data-diff="added"]')).toContainText('edited by a person');
  expect(problems, 'no errors (hydration or other) in the console').toEqual([]);
});

test('an invalid edit is refused with the field error and the call stays; a denial by keyboard reaches the model', async ({
  page,
  request,
}) => {
  const approvals = new ApprovalsPage(page);
  await approvals.goto();
  const traceId = await pendingWrite(request, `notes/${unique('denied')}.txt`, 'do not write this');
  const card = approvals.card(traceId);
  await expect(card).toBeVisible();

  // A path the tool refuses (empty) in raw JSON mode: the server's 400 keeps the call pending.
  await card.getByRole('heading', { name: 'write_file' }).click();
  await expect(card).toHaveAttribute('data-selected', 'true');
  await page.keyboard.press('e');
  await card.getByTestId('edit-mode-json').click();
  await card.getByTestId('edit-json').fill('{"path": "", "content": "x"}');
  await card.getByTestId('approve-edited').click();
  await expect(card.getByTestId('approval-error')).toContainText('INVALID_ARGUMENTS');
  await expect(card.getByTestId('edit-issues')).toContainText('path');
  expect(await pendingCount(request)).toBeGreaterThanOrEqual(1);

  // d opens the reason box focused; typing there fires no shortcut; Enter denies.
  await card.getByRole('heading', { name: 'write_file' }).click();
  await page.keyboard.press('d');
  const reason = card.getByTestId('deny-reason');
  await expect(reason).toBeFocused();
  await reason.pressSequentially('Use notes/scratch.md for drafts; a, e, d and j are text here.');
  await expect(card).toBeVisible();
  await reason.press('Enter');
  await expect(card).toHaveCount(0);

  const trace = new TracePage(page);
  await trace.goto(traceId);
  await expect(trace.status).toHaveAttribute('data-status', 'denied');
  await expect(page.getByTestId('approval-reason')).toContainText('Use notes/scratch.md for drafts');
  const model = await trace.openTab('model');
  await expect(model).toContainText('Use notes/scratch.md for drafts');
});

test('keyboard: j/k move the selection and a approves the selected call', async ({ page, request }) => {
  const approvals = new ApprovalsPage(page);
  await approvals.goto();
  const first = await pendingWrite(request, `notes/${unique('keys')}.txt`, 'one');
  const second = await pendingWrite(request, `notes/${unique('keys')}.txt`, 'two');
  await expect(approvals.card(second)).toBeVisible();
  await approvals.card(first).getByRole('heading', { name: 'write_file' }).click();
  await expect(approvals.card(first)).toHaveAttribute('data-selected', 'true');
  await page.keyboard.press('j');
  await expect(approvals.card(first)).not.toHaveAttribute('data-selected', 'true');
  await page.keyboard.press('k');
  await expect(approvals.card(first)).toHaveAttribute('data-selected', 'true');
  await page.keyboard.press('a');
  await expect(approvals.card(first)).toHaveCount(0);
  await expect(approvals.card(second)).toBeVisible();
  await expect
    .poll(async () => ((await (await request.get(`/api/v1/traces/${first}`)).json()) as { status: string }).status)
    .toBe('succeeded');
});

test('"always allow" with a specifier creates the rule and the next identical call runs without asking', async ({
  page,
  request,
}) => {
  const approvals = new ApprovalsPage(page);
  await approvals.goto();
  const file = `notes/${unique('always')}.txt`;
  const traceId = await pendingWrite(request, file, 'first');
  const card = approvals.card(traceId);
  await card.getByTestId('always').click();
  await expect(card.getByTestId('always-specifier')).toHaveValue(file);
  await expect(card.getByTestId('always-preview')).toHaveText(`allow write_file(${file})`);
  await card.getByTestId('always-submit').click();
  await expect(card).toHaveCount(0);
  const entry = approvals.log.locator(`[data-trace-id="${traceId}"]`);
  await expect(entry.getByTestId('rule-created')).toContainText(`write_file(${file})`);
  await expect(entry.getByRole('link', { name: /Policy/ })).toHaveAttribute('href', '/policy');

  const policy = (await (await request.get('/api/v1/policy')).json()) as { rules: { list: string; rule: string }[] };
  expect(policy.rules).toContainEqual(expect.objectContaining({ list: 'allow', rule: `write_file(${file})` }));

  const again = await postToolCall(request, {
    id: unique('call_write'),
    name: 'write_file',
    arguments: { path: file, content: 'first' },
  });
  expect(again.status).toBe('succeeded');

  const trace = new TracePage(page);
  await trace.goto(traceId);
  await expect(page.getByTestId('approval-rule-created')).toContainText(`write_file(${file})`);
});
