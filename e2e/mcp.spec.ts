import fs from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect, type Page } from '@playwright/test';
import { flakyDownFlag, testWithOwnServer } from './app-server';
import { postToolCall, unique } from './pages/api';
import { ToolPage } from './pages/tool-page';
import { TracePage } from './pages/trace-page';

// The e2e server is configured with two upstream MCP servers over stdio (e2e/app-server.ts):
// `everything` (@modelcontextprotocol/server-everything) and `flaky` (e2e/fixtures/flaky-mcp-server.mjs).
// Taking `flaky` down changes the tools every page of a server lists: this file has a Toolscope of its own.
const test = testWithOwnServer('toolscope-e2e-mcp-');

const STAGES = ['parse', 'validate', 'permission', 'execute', 'normalize', 'trace'];

const serverCard = (page: Page, name: string) => page.locator(`[data-testid="mcp-server"][data-server="${name}"]`);
const toolRow = (page: Page, name: string) => page.locator(`[data-testid="tool-row"][data-tool="${name}"]`);

/** Takes `flaky` down: its flag keeps it from starting again, and its `crash` tool ends the running process. */
async function takeFlakyDown(request: Parameters<typeof postToolCall>[0], dataDir: string) {
  fs.writeFileSync(flakyDownFlag(dataDir), 'down for an e2e test\n');
  const crash = await postToolCall(request, { id: unique('call_crash'), name: 'flaky__crash', arguments: {} });
  expect(crash.status).toBe('succeeded');
}

test.afterEach(({ app }) => {
  fs.rmSync(flakyDownFlag(app.dataDir), { force: true });
});

test('a tool of an upstream server runs from the playground, and its trace shows the server stderr', async ({
  page,
}) => {
  const tool = new ToolPage(page);
  await tool.goto('flaky__note');
  // The browser checks the server's JSON Schema with the server's validator (Ajv): an empty text is refused inline.
  const text = tool.field('text');
  await text.fill('x');
  await text.fill('');
  await expect(text).toHaveAttribute('aria-invalid', 'true');
  await expect(page.locator('[data-testid="form-field"][data-path="text"] [data-testid="form-issue"]')).toHaveText(
    'Must not be empty',
  );
  const note = unique('from the playground');
  await text.fill(note);
  await expect(text).not.toHaveAttribute('aria-invalid', 'true');
  await tool.runAndWait();
  await expect(tool.result).toHaveAttribute('data-status', 'succeeded');
  await expect(tool.result).toContainText(`noted: ${note}`);

  await page.getByTestId('playground-trace-link').click();
  const trace = new TracePage(page);
  await expect(trace.status).toHaveAttribute('data-status', 'succeeded');
  for (const name of STAGES) await expect(trace.stage(name)).toHaveAttribute('data-status', 'ok');
  const stderr = await trace.openTab('stderr');
  await expect(stderr).toContainText(`flaky: noting "${note}"`);
  const output = await trace.openTab('output');
  await expect(output).toContainText(`noted: ${note}`);
});

test("a tool of the reference server (server-everything) runs from the playground with its own schema's form", async ({
  page,
}) => {
  const tool = new ToolPage(page);
  await tool.goto('everything__echo');
  await tool.field('message').fill('hello through Toolscope');
  await tool.runAndWait();
  await expect(tool.result).toHaveAttribute('data-status', 'succeeded');
  await expect(tool.result).toContainText('hello through Toolscope');
});

test('the tools page shows a server going down, its tools unavailable, and coming back on Reconnect', async ({
  page,
  request,
  app,
}) => {
  test.setTimeout(90_000);
  await page.goto('/tools');
  const flaky = serverCard(page, 'flaky');
  await expect(flaky).toHaveAttribute('data-state', 'connected', { timeout: 20_000 });
  await expect(flaky.getByTestId('mcp-meta')).toContainText('stdio');
  await expect(flaky.getByTestId('mcp-meta')).toContainText('flaky-fixture 1.2.3');
  await expect(flaky.getByTestId('mcp-tool-count')).toHaveText('2');
  await expect(serverCard(page, 'everything')).toHaveAttribute('data-state', 'connected');
  const group = page.locator('[data-testid="tool-group"][data-server="flaky"]');
  await expect(group.locator('[data-testid="tool-row"]')).toHaveCount(2);
  await expect(toolRow(page, 'flaky__note')).toHaveAttribute('data-available', 'true');

  // Down: the page follows without a reload; the tools stay, marked unavailable with the reason.
  await takeFlakyDown(request, app.dataDir);
  await expect(flaky).toHaveAttribute('data-state', /^(failed|disconnected)$/, { timeout: 20_000 });
  await expect(flaky.getByTestId('mcp-error')).toBeVisible();
  await expect(flaky.getByTestId('mcp-stderr')).toContainText('refusing to start', { timeout: 20_000 });
  await expect(toolRow(page, 'flaky__note')).toHaveAttribute('data-available', 'false');
  await expect(toolRow(page, 'flaky__note').getByTestId('tool-unavailable-reason')).toContainText('flaky');
  await expect(group.locator('[data-testid="tool-row"]')).toHaveCount(2);
  const refused = await postToolCall(request, {
    id: unique('call_note'),
    name: 'flaky__note',
    arguments: { text: 'while down' },
  });
  expect(refused.status).toBe('failed');
  expect(refused.error?.code).toBe('UPSTREAM_UNAVAILABLE');

  // Back: the flag is gone; Reconnect (by keyboard) brings it back at once, whatever the backoff says.
  fs.rmSync(flakyDownFlag(app.dataDir), { force: true });
  const reconnect = flaky.getByTestId('mcp-reconnect');
  await reconnect.focus();
  await page.keyboard.press('Enter');
  await expect(flaky).toHaveAttribute('data-state', 'connected', { timeout: 20_000 });
  await expect(flaky.getByTestId('mcp-error')).toHaveCount(0);
  await expect(toolRow(page, 'flaky__note')).toHaveAttribute('data-available', 'true');
  const back = await postToolCall(request, {
    id: unique('call_note'),
    name: 'flaky__note',
    arguments: { text: 'back' },
  });
  expect(back.status).toBe('succeeded');
});

test('a call made through /mcp names the MCP client and its version on the trace page', async ({ page, app }) => {
  const client = new Client({ name: 'e2e-agent', version: '4.5.6' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${app.base}/mcp`)));
  try {
    const answer = await client.callTool({ name: 'calculator', arguments: { expression: '6*7' } });
    expect(answer.isError ?? false).toBe(false);
  } finally {
    await client.close();
  }
  const listed = (await (await page.request.get('/api/v1/traces?tool=calculator&limit=1')).json()) as {
    items: { id: string }[];
  };
  const trace = new TracePage(page);
  await trace.goto(listed.items[0]!.id);
  await expect(page.getByTestId('trace-mcp-client')).toHaveText('via e2e-agent 4.5.6');
});
