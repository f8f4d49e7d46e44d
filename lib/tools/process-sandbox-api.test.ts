import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { createHttpApp } from '../http/app';
import { callApp } from '../http/testing/call-app';
import { serveToolscope } from '../http/testing/serve-toolscope';
import { createToolscope, type Toolscope } from '../server/create-toolscope';
import { findSlirp4netns, networkProblem } from './sandbox-network';

// The sandbox as the app shows and applies it: GET /api/v1/tools, and run_shell calls through
// the whole pipeline with the config's shell settings.
let ts: Toolscope | null = null;
let dataDir = '';

afterEach(() => {
  ts?.close();
  ts = null;
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function start(shell: Record<string, unknown>): Toolscope {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-sandbox-api-'));
  fs.writeFileSync(
    path.join(dataDir, 'toolscope.config.json'),
    JSON.stringify({ policies: { run_shell: 'allow' }, shell: { allow: ['echo'], ...shell } }),
  );
  ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: dataDir }, dataDir));
  return ts;
}

async function runEcho(app: Toolscope) {
  const response = await callApp(createHttpApp(app), 'POST', '/api/v1/tool-calls', {
    body: {
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'run_shell', arguments: '{"command":["echo","hi"]}' } },
      ],
    },
  });
  return (await response.json()).results[0];
}

describe('the shell sandbox in the app', () => {
  it('is listed with the tools, and run_shell runs in it, by default', async () => {
    const app = start({});
    const listing = await (await callApp(createHttpApp(app), 'GET', '/api/v1/tools')).json();
    expect(listing.sandbox).toEqual({ kind: 'bubblewrap', available: true, network: false, run_shell: 'sandboxed' });
    expect(listing.tools.map((tool: { name: string }) => tool.name)).toContain('run_shell');
    expect(await runEcho(app)).toMatchObject({ status: 'succeeded', output: 'hi\n' });
  });

  it('refuses run_shell with a structured error when the config turns the sandbox off', async () => {
    const app = start({ sandbox: 'none' });
    const listing = await (await callApp(createHttpApp(app), 'GET', '/api/v1/tools')).json();
    expect(listing.sandbox).toMatchObject({ kind: 'none', run_shell: 'refused', reason: expect.any(String) });
    const result = await runEcho(app);
    expect(result).toMatchObject({
      status: 'denied',
      error: { code: 'PERMISSION_DENIED', details: { check: 'shell sandbox', sandbox: 'none' } },
    });
    expect(result.error.hint).toMatch(/shell\.allow_unsandboxed/);
  });

  it('runs run_shell unsandboxed when the config accepts the risk, and says so', async () => {
    const app = start({ sandbox: 'none', allow_unsandboxed: true });
    const listing = await (await callApp(createHttpApp(app), 'GET', '/api/v1/tools')).json();
    expect(listing.sandbox).toMatchObject({ kind: 'none', run_shell: 'unsandboxed' });
    expect(await runEcho(app)).toMatchObject({ status: 'succeeded', output: 'hi\n' });
  });

  it('rejects a config with an unknown sandbox', () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-sandbox-api-'));
    fs.writeFileSync(path.join(dataDir, 'toolscope.config.json'), JSON.stringify({ shell: { sandbox: 'docker' } }));
    expect(() => loadConfig({ TOOLSCOPE_DATA_DIR: dataDir }, dataDir)).toThrow(/shell\.sandbox/);
  });
});

/** slirp4netns and a usable /dev/net/tun: `.ci/run` and `npm test` (root) have both. */
const networkMissing = networkProblem(findSlirp4netns(), '/bin/sh');

describe.skipIf(networkMissing !== null)(
  `the sandbox's network in the app${networkMissing ? ` (skipped: ${networkMissing})` : ''}`,
  () => {
    it("keeps a program run_shell runs off Toolscope's own API, with shell.network on", async () => {
      const served = await serveToolscope({
        policies: { run_shell: 'allow' },
        shell: { allow: ['curl', 'bash'], network: true },
      });
      try {
        const { port } = new URL(served.baseUrl);
        // curl where it is installed; bash's own TCP client otherwise (an HTTP request all the same).
        const get = (host: string) =>
          fs.existsSync('/usr/bin/curl')
            ? ['curl', '-sS', '-m', '5', `http://${host}:${port}/api/v1/approvals`]
            : [
                'bash',
                '-c',
                `exec 3<>/dev/tcp/${host}/${port} && printf 'GET /api/v1/approvals HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`,
              ];
        // The API answers here, outside the sandbox.
        expect((await fetch(`${served.baseUrl}/api/v1/approvals`)).status).toBe(200);
        for (const host of ['127.0.0.1', 'localhost', '10.0.2.2']) {
          const response = await callApp(served.app, 'POST', '/api/v1/tool-calls', {
            body: {
              tool_calls: [
                {
                  id: 'c1',
                  type: 'function',
                  function: { name: 'run_shell', arguments: JSON.stringify({ command: get(host) }) },
                },
              ],
            },
          });
          const [result] = (await response.json()).results;
          expect(result, host).toMatchObject({ status: 'failed', error: { code: 'NON_ZERO_EXIT' } });
          // Not a word of the API's answer ({"approvals":[…]}) came back.
          expect(JSON.stringify(result), host).not.toMatch(/approvals\\?":/);
        }
        const listing = await (await callApp(served.app, 'GET', '/api/v1/tools')).json();
        expect(listing.sandbox).toEqual({ kind: 'bubblewrap', available: true, network: true, run_shell: 'sandboxed' });
      } finally {
        await served.close();
      }
    });
  },
);
