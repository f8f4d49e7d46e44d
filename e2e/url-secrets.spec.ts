import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { postToolCall, unique } from './pages/api';
import { TracePage } from './pages/trace-page';

const SECRET = 'abc123supersecret';

test('a secret in a URL is redacted in the arguments, the output, what the model saw and the export', async ({
  page,
  request,
}) => {
  // An upstream that echoes the URL it was asked for, as many APIs do in their answers.
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ requested: `http://${req.headers.host}${req.url}` }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    const { traceId, status } = await postToolCall(request, {
      id: unique('call_url_secret'),
      name: 'http_request',
      arguments: { url: `http://user:hunter2pass@127.0.0.1:${port}/items?token=${SECRET}&page=2` },
    });
    // user:password in a URL is refused by the tool; the point here is what gets stored and shown.
    expect(['succeeded', 'failed']).toContain(status);

    const trace = new TracePage(page);
    await trace.goto(traceId);
    await expect(trace.arguments).toContainText('[REDACTED]');
    await expect(trace.arguments).toContainText('page=2');
    for (const tab of ['output', 'model'] as const) await trace.openTab(tab);
    const html = await page.content();
    expect(html).not.toContain(SECRET);
    expect(html).not.toContain('hunter2pass');

    const api = await (await request.get(`/api/v1/traces/${traceId}`)).text();
    expect(api).not.toContain(SECRET);
    expect(api).not.toContain('hunter2pass');
    const exported = await (await request.get(`/api/v1/traces/${traceId}/export`)).text();
    expect(exported).not.toContain(SECRET);
    expect(exported).toContain('[REDACTED]');
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

test('a secret in a query parameter of a successful call is redacted in its echoed output too', async ({
  page,
  request,
}) => {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ requested: req.url }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    const { traceId, status } = await postToolCall(request, {
      id: unique('call_url_token'),
      name: 'http_request',
      arguments: { url: `http://127.0.0.1:${port}/search?q=tools&access_token=${SECRET}` },
    });
    expect(status).toBe('succeeded');
    const trace = new TracePage(page);
    await trace.goto(traceId);
    await expect(trace.arguments).toContainText('access_token=[REDACTED]');
    const output = await trace.openTab('output');
    await expect(output).toContainText('[REDACTED]');
    const model = await trace.openTab('model');
    await expect(model).toContainText('[REDACTED]');
    expect(await page.content()).not.toContain(SECRET);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
