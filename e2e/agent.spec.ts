import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { unique } from './pages/api';
import { ApprovalsPage } from './pages/approvals-page';
import { SessionViewPage } from './pages/sessions-page';
import { TracesPage } from './pages/traces-page';

// Playwright runs from the repository root (playwright.config.ts).
const root = process.cwd();

/** `examples/agent.ts --scripted` as a child process against the e2e server; resolves with its exit code and output. */
function runScriptedAgent(baseURL: string, session: string) {
  const child = spawn(
    path.join(root, 'node_modules/.bin/tsx'),
    [
      'examples/agent.ts',
      '--scripted',
      'examples/transcripts/parallel-fix-approve.json',
      '--toolscope',
      baseURL,
      '--session',
      session,
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

test('a scripted run of examples/agent.ts waits for its write to be approved on /approvals, and its calls list as one session', async ({
  page,
  request,
  baseURL,
}) => {
  test.setTimeout(60_000);
  const session = unique('agent-run');
  const agent = runScriptedAgent(baseURL!, session);
  try {
    // The third turn's write_file asks (write tools do by default): approve it on the page.
    const approvals = new ApprovalsPage(page);
    await approvals.goto();
    let traceId = '';
    await expect
      .poll(async () => {
        const body = (await (await request.get('/api/v1/approvals')).json()) as {
          approvals: { trace_id: string; session_id: string | null }[];
        };
        traceId = body.approvals.find((a) => a.session_id === session)?.trace_id ?? '';
        return traceId;
      })
      .not.toBe('');
    const card = approvals.card(traceId);
    await expect(card.getByRole('heading', { name: 'write_file' })).toBeVisible();
    await expect(card.getByTestId('approval-arguments')).toContainText('notes/answers.md');
    await expect.poll(agent.output).toContain(`⏸ write_file waits for approval: ${baseURL}/approvals`);
    await card.getByTestId('approve').click();
    await expect(card).toHaveCount(0);

    expect(await agent.exited, agent.output()).toBe(0);
  } finally {
    agent.child.kill();
  }
  expect(agent.output()).toContain(`session ${session}: ${baseURL}/sessions/${session}`);
  expect(agent.output()).toContain('done: 5 tool calls in 4 turns');

  // The run's calls, filtered by its session id: three parallel calculator calls (one failed),
  // the fixed one, and the approved write.
  const traces = new TracesPage(page);
  await traces.goto(`?session=${session}`);
  await expect(traces.rows).toHaveCount(5);
  await expect(traces.rows.and(page.locator('[data-status="failed"]'))).toHaveCount(1);
  await expect(traces.rows.and(page.locator('[data-status="succeeded"]'))).toHaveCount(4);
  await expect(traces.rows.and(page.locator('[data-tool="calculator"]'))).toHaveCount(4);
  await expect(traces.rows.and(page.locator('[data-tool="write_file"]'))).toHaveCount(1);
  await expect(traces.rows.first()).toContainText(session);
  if (process.env.SCREENS_DIR) {
    await page.screenshot({ path: path.join(process.env.SCREENS_DIR, 'agent-session-traces.png'), fullPage: true });
  }

  // The session view: the first turn's three parallel calls in three lanes of one batch, the
  // approval wait drawn on the write, and what the model said above each batch.
  // Reached from one of its traces: the trace page links to its session view.
  const detail = (await (await request.get(`/api/v1/sessions/${session}`)).json()) as {
    calls: { id: string; tool: string; batch_id: string }[];
  };
  await page.goto(`/traces/${detail.calls[0]?.id}`);
  await page.getByTestId('open-session-view').click();
  await expect(page).toHaveURL(new RegExp(`/sessions/${session}$`));
  const view = new SessionViewPage(page);
  await expect(view.view).toBeVisible();
  await expect(view.bars).toHaveCount(5);
  const firstBatch = detail.calls.filter((call) => call.batch_id === detail.calls[0]?.batch_id);
  expect(firstBatch).toHaveLength(3);
  const lanes = await Promise.all(firstBatch.map((call) => view.bar(call.id).getAttribute('data-lane')));
  expect(new Set(lanes).size).toBe(3);
  const write = detail.calls.find((call) => call.tool === 'write_file');
  await expect(view.bar(write?.id ?? '').locator('[data-segment="approval_wait"]')).toHaveCount(1);
  const headers = page.getByTestId('batch-header');
  await expect(headers).toHaveCount(3);
  await expect(headers.first().getByTestId('assistant-text')).toContainText('compute them at once');
  await expect(headers.first().getByTestId('assistant-model')).toHaveText('scripted:parallel-fix-approve');
  if (process.env.SCREENS_DIR) {
    await page.screenshot({ path: path.join(process.env.SCREENS_DIR, 'agent-session-view.png'), fullPage: true });
  }
});
