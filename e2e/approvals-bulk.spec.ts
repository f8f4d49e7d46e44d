import { type APIRequestContext, expect } from '@playwright/test';
import { testWithOwnServer } from './app-server';
import { postToolCall, unique } from './pages/api';
import { ApprovalsPage, pendingWrite } from './pages/approvals-page';
import { ShortcutsDialog } from './pages/shortcuts-dialog';

/**
 * The approval card as a person decides from it: why (the model's message with the request), the
 * call as it reads (a new file's content), every call of a request approved with one click and one
 * reason, and "yes, and don't ask again" with one keystroke. "Don't ask again" adds a rule to the
 * policy every call is judged by: this file has a Toolscope of its own (in local mode, its
 * approvals expiring after 2 min as app-server.ts configures: each test decides well before).
 */
const test = testWithOwnServer('toolscope-e2e-approvals-bulk-');

/** Three `write_file` calls in one request (one batch), waiting: their trace ids, in order. */
async function pendingBatchOfThree(request: APIRequestContext, sessionId: string, message: string) {
  const files = [1, 2, 3].map((n) => `notes/${unique(`bulk-${n}`)}.txt`);
  const response = await request.post('/api/v1/tool-calls', {
    data: {
      session_id: sessionId,
      wait: false,
      assistant_message: { text: message, model: 'e2e-model' },
      tool_calls: files.map((file, index) => ({
        id: unique(`call_bulk_${index + 1}`),
        type: 'function',
        function: { name: 'write_file', arguments: JSON.stringify({ path: file, content: `note ${index + 1}` }) },
      })),
    },
  });
  expect(response.ok()).toBe(true);
  const body = (await response.json()) as { results: { trace_id: string; status: string }[] };
  expect(body.results.map((result) => result.status)).toEqual(Array(3).fill('awaiting_approval'));
  return { files, traceIds: body.results.map((result) => result.trace_id) };
}

async function traceOf(request: APIRequestContext, traceId: string) {
  return (await (await request.get(`/api/v1/traces/${traceId}`)).json()) as {
    status: string;
    approval: { decision: string | null; by: string | null; reason: string | null } | null;
  };
}

test('every call of one request is approved with one click and one reason, under the message that asked for them', async ({
  page,
  request,
}) => {
  const approvals = new ApprovalsPage(page);
  await approvals.goto();
  const sessionId = unique('sess-bulk');
  const message = `Saving the three notes of ${sessionId}.`;
  const { files, traceIds } = await pendingBatchOfThree(request, sessionId, message);

  // One group: the model's message above the three cards, each showing its new file.
  const group = page.getByTestId('approval-group').filter({ has: approvals.card(traceIds[0]!) });
  await expect(group).toHaveCount(1);
  await expect(group.getByTestId('approval-why-text')).toHaveText(message);
  for (const [index, traceId] of traceIds.entries()) {
    const card = group.locator(`[data-testid="approval"][data-trace-id="${traceId}"]`);
    await expect(card).toBeVisible();
    const preview = card.getByTestId('approval-arguments');
    await expect(preview).toHaveAttribute('data-kind', 'file');
    await expect(preview).toContainText(files[index]!);
    await expect(preview.getByTestId('file-change')).toHaveText('new file');
    await expect(preview).toContainText(`note ${index + 1}`);
  }

  // One reason, one click: all three leave the queue.
  await group.getByTestId('bulk-reason').fill('Three notes, read and fine.');
  await expect(group.getByTestId('bulk-approve')).toHaveText(/Approve all 3 calls/);
  await group.getByTestId('bulk-approve').click();
  for (const traceId of traceIds) await expect(approvals.card(traceId)).toHaveCount(0);
  for (const traceId of traceIds) {
    await expect(approvals.log.locator(`[data-trace-id="${traceId}"]`)).toContainText('Approved');
  }

  // All three ran, each decided by the one person with the one reason.
  for (const traceId of traceIds) {
    await expect.poll(async () => (await traceOf(request, traceId)).status).toBe('succeeded');
    expect((await traceOf(request, traceId)).approval).toMatchObject({
      decision: 'approved',
      by: 'local',
      reason: 'Three notes, read and fine.',
    });
  }
  for (const [index, file] of files.entries()) {
    const read = await postToolCall(request, { id: unique('call_read'), name: 'read_file', arguments: { path: file } });
    expect(read.status).toBe('succeeded');
    expect(JSON.stringify(read.output)).toContain(`note ${index + 1}`);
  }
});

test('Shift+A approves the selected call and adds the rule shown on its card: the same call then runs unasked', async ({
  page,
  request,
}) => {
  const approvals = new ApprovalsPage(page);
  await approvals.goto();
  const file = `notes/${unique('dont-ask')}.txt`;
  const traceId = await pendingWrite(request, file, 'same content');
  const card = approvals.card(traceId);
  await expect(card.getByTestId('dont-ask-again-rule')).toHaveText(`write_file(${file})`);

  // Select the card (not a field), then the one keystroke.
  await card.getByRole('heading', { name: 'write_file' }).click();
  await expect(card).toHaveAttribute('data-selected', 'true');
  await page.keyboard.press('Shift+A');
  await expect(card).toHaveCount(0);
  const entry = approvals.log.locator(`[data-trace-id="${traceId}"]`);
  await expect(entry.getByTestId('rule-created')).toContainText(`write_file(${file})`);
  await expect.poll(async () => (await traceOf(request, traceId)).status).toBe('succeeded');

  const policy = (await (await request.get('/api/v1/policy')).json()) as { rules: { list: string; rule: string }[] };
  expect(policy.rules).toContainEqual(expect.objectContaining({ list: 'allow', rule: `write_file(${file})` }));
  const again = await postToolCall(request, {
    id: unique('call_write'),
    name: 'write_file',
    arguments: { path: file, content: 'same content' },
  });
  expect(again.status).toBe('succeeded');

  // The shortcuts dialog lists the keystroke.
  const shortcuts = new ShortcutsDialog(page);
  await shortcuts.openWithKey();
  await expect(shortcuts.dialog).toContainText('don’t ask again');
  await shortcuts.closeWithEscape();
});
