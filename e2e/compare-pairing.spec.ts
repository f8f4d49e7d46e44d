import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type APIRequestContext, expect, test } from '@playwright/test';
import { postToolCall, unique } from './pages/api';
import { ComparePage, openTrace, SessionComparePage } from './pages/compare-page';
import { ComparePickerDialog } from './pages/compare-picker';
import { SessionViewPage } from './pages/sessions-page';

/** An upstream on loopback whose JSON answer differs only by when it was served (`served_at`, the Date header). */
async function startClockUpstream() {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: true, served_at: new Date().toISOString() }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/status`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function replaySession(request: APIRequestContext, session: string): Promise<string> {
  const response = await request.post(`/api/v1/sessions/${encodeURIComponent(session)}/replay`, { data: {} });
  expect(response.ok(), await response.text()).toBe(true);
  return ((await response.json()) as { session_id: string }).session_id;
}

test('two unrelated sessions say they share no calls, each call alone, none "outcome changed"', async ({
  page,
  request,
}) => {
  const left = unique('sess-left');
  const right = unique('sess-right');
  await postToolCall(request, {
    id: unique('call'),
    name: 'calculator',
    arguments: { expression: '1+1' },
    sessionId: left,
  });
  await postToolCall(request, {
    id: unique('call'),
    name: 'calculator',
    arguments: { expression: '2+3' },
    sessionId: left,
  });
  await postToolCall(request, {
    id: unique('call'),
    name: 'run_shell',
    arguments: { command: ['echo', 'other'] },
    sessionId: right,
  });

  await page.goto(`/sessions/${left}/compare/${right}`);
  const compare = new SessionComparePage(page);
  await expect(compare.view).toBeVisible();
  await expect(page.getByTestId('no-shared-calls')).toContainText('These sessions share no calls: nothing is paired');
  await expect(compare.pairs).toHaveCount(3);
  await expect(compare.pairs.and(page.locator('[data-verdict="only_in_a"]'))).toHaveCount(2);
  await expect(compare.pairs.and(page.locator('[data-verdict="only_in_b"]'))).toHaveCount(1);
  await expect(page.locator('[data-testid="pair-outcome"][data-changed="true"]')).toHaveCount(0);
  await expect(compare.counts).toContainText('0 pairs');
  await expect(compare.pairs.getByTestId('pair-compare')).toHaveCount(0);
});

test('a session and its replay differing only by when the upstream answered: no "output changed", the volatile paths on request', async ({
  page,
  request,
}) => {
  const upstream = await startClockUpstream();
  try {
    const session = unique('sess-clock');
    const call = await postToolCall(request, {
      id: unique('call'),
      name: 'http_request',
      arguments: { url: upstream.url },
      sessionId: session,
    });
    expect(call.status).toBe('succeeded');
    const replay = await replaySession(request, session);

    // From the session page: "Compare with…" lists the replay session.
    const view = new SessionViewPage(page);
    await view.goto(session);
    const picker = new ComparePickerDialog(page);
    await picker.open();
    await picker.candidate(replay, 'replays').click();
    await page.waitForURL(new RegExp(`/sessions/${session}/compare/${replay}$`));

    const compare = new SessionComparePage(page);
    const pair = compare.pair('http_request');
    await expect(pair).toHaveAttribute('data-verdict', 'same');
    await expect(pair).toHaveAttribute('data-changed', 'false');
    await expect(pair.getByTestId('pair-output')).toHaveAttribute('data-changed', 'false');
    await expect(pair.getByTestId('pair-output')).toContainText('output unchanged');
    await expect(pair.getByTestId('pair-matched-by')).toHaveAttribute('data-matched-by', 'replay_of');
    await expect(page.getByTestId('no-shared-calls')).toHaveCount(0);
    await expect(compare.counts).toContainText('0 changed');
    await expect(page.getByTestId('ignored-count')).toContainText(/\d+ volatile differences? ignored/);
    await page.getByTestId('show-ignored').check();
    await expect(pair.getByTestId('pair-ignored')).toContainText('body.served_at');

    // The pair's comparison applies the same rules.
    await pair.getByTestId('pair-compare').click();
    const calls = new ComparePage(page);
    await expect(calls.view).toBeVisible();
    await expect(calls.verdict('output')).toHaveAttribute('data-changed', 'false');
    await expect(calls.verdict('outcome')).toHaveAttribute('data-changed', 'false');
    await expect(calls.outputDiff).toHaveAttribute('data-changed', 'false');
    await expect(page.getByTestId('ignored-count')).toBeVisible();
    await page.getByTestId('show-ignored').check();
    await expect(calls.pathChange('output', 'body.served_at')).toHaveAttribute('data-ignored', 'true');
  } finally {
    await upstream.close();
  }
});

test('"Compare with…" on a trace page lists the calls of its tool in its session, searches ids, and opens the comparison', async ({
  page,
  request,
}) => {
  const session = unique('sess-pick');
  const first = await postToolCall(request, {
    id: unique('call'),
    name: 'calculator',
    arguments: { expression: '6*7' },
    sessionId: session,
  });
  const second = await postToolCall(request, {
    id: unique('call'),
    name: 'calculator',
    arguments: { expression: '6*8' },
    sessionId: session,
  });

  await openTrace(page, first.traceId);
  const picker = new ComparePickerDialog(page);
  await picker.open();
  await expect(picker.candidate(second.traceId, 'session')).toBeVisible();
  await expect(picker.candidate(first.traceId)).toHaveCount(0);
  await picker.search.fill(second.traceId);
  await expect(picker.candidate(second.traceId, 'search')).toBeVisible();
  await picker.search.press('ArrowDown');
  await expect(picker.candidate(second.traceId, 'search')).toBeFocused();
  // Keys pressed in the dialog stay there: `r` does not replay the call behind it.
  await page.keyboard.press('r');
  await page.keyboard.press('Enter');

  await page.waitForURL(new RegExp(`/traces/${first.traceId}/compare/${second.traceId}$`));
  const compare = new ComparePage(page);
  await expect(compare.view).toHaveAttribute('data-a', first.traceId);
  await expect(compare.view).toHaveAttribute('data-b', second.traceId);
  await expect(compare.pathChange('arguments', 'expression')).toHaveAttribute('data-kind', 'changed');
  await expect(compare.verdict('output')).toHaveAttribute('data-changed', 'true');
  const original = await request.get(`/api/v1/traces/${first.traceId}`);
  expect(((await original.json()) as { replays: string[] }).replays).toEqual([]);

  // Esc closes the dialog without going anywhere.
  await openTrace(page, second.traceId);
  await picker.open();
  await page.keyboard.press('Escape');
  await expect(picker.dialog).toBeHidden();
  await expect(page).toHaveURL(new RegExp(`/traces/${second.traceId}$`));
});
