import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { mkdir, realpath } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processesWith, sleepMarker, waitUntil } from '../hardening/testing/processes';
import { describeShellSandbox, detectShellSandbox, shellSandboxJson } from './process-sandbox';
import { createRunShellTool } from './run-shell';
import { findSlirp4netns, networkProblem } from './sandbox-network';
import { createTempDir, createTestContext, expectToolError } from './test-helpers';

/** A stand-in for the server, run in a process of its own to be SIGKILLed (see the file). */
const HOST_SCRIPT = path.join(__dirname, '../hardening/testing/run-shell-host.ts');
let temp: Awaited<ReturnType<typeof createTempDir>>;
let workspace: string;

beforeAll(async () => {
  temp = await createTempDir();
  workspace = path.join(await realpath(temp.dir), 'ws');
  await mkdir(workspace);
});

afterAll(() => temp.remove());

describe('the shell sandbox', () => {
  it('is bubblewrap by default where it works, without network', () => {
    const sandbox = detectShellSandbox();
    expect(sandbox).toMatchObject({
      kind: 'bubblewrap',
      available: true,
      reason: null,
      network: false,
      refused: false,
    });
    expect(shellSandboxJson(sandbox)).toEqual({
      kind: 'bubblewrap',
      available: true,
      network: false,
      run_shell: 'sandboxed',
    });
    expect(describeShellSandbox(sandbox)).toBe(
      'run_shell: programs run in a bubblewrap sandbox (workspace only, no network)',
    );
  });

  it('refuses every command with "none" unless the config accepts running unsandboxed', async () => {
    const sandbox = detectShellSandbox({ setting: 'none' });
    expect(shellSandboxJson(sandbox)).toEqual({
      kind: 'none',
      available: true,
      reason: 'the config sets shell.sandbox to "none"',
      network: true,
      run_shell: 'refused',
    });
    expect(describeShellSandbox(sandbox)).toMatch(/^run_shell: NO SANDBOX .*run_shell is refused/);
    const tool = createRunShellTool({ workspace, allow: ['echo'], sandbox, configFile: '/srv/toolscope.config.json' });
    expect(tool.checkPermission?.({ command: ['echo', 'hi'] })).toMatchObject({
      check: 'shell sandbox',
      message: 'run_shell is off: there is no sandbox to run programs in (the config sets shell.sandbox to "none").',
      hint: expect.stringContaining('shell.allow_unsandboxed in /srv/toolscope.config.json'),
    });
    const error = await expectToolError(async () => tool.execute({ command: ['echo', 'hi'] }, createTestContext()));
    expect(error).toMatchObject({ code: 'PERMISSION_DENIED', kind: 'permission', details: { check: 'shell sandbox' } });
  });

  it('runs programs unsandboxed when the config accepts it, and says so', async () => {
    const sandbox = detectShellSandbox({ setting: 'none', allowUnsandboxed: true });
    expect(shellSandboxJson(sandbox).run_shell).toBe('unsandboxed');
    expect(describeShellSandbox(sandbox)).toMatch(/programs run unsandboxed and can read what the server can/);
    const tool = createRunShellTool({ workspace, allow: ['sed'], sandbox });
    const output = await tool.execute({ command: ['sed', 's/\\x0/ /g', '/proc/self/cmdline'] }, createTestContext());
    expect(output.stdout).toBe('sed s/\\x0/ /g /proc/self/cmdline ');
  });

  it('with "bubblewrap" and no bwrap, refuses even when unsandboxed runs are allowed', () => {
    const sandbox = detectShellSandbox({
      setting: 'bubblewrap',
      allowUnsandboxed: true,
      bwrapPath: '/nonexistent/bwrap',
    });
    expect(sandbox).toMatchObject({ kind: 'none', available: false, refused: true });
    expect(sandbox.reason).toMatch(/bubblewrap \(bwrap\) is not installed/);
  });

  it('with "auto" and no bwrap, falls back to none (refused unless allowed)', () => {
    expect(detectShellSandbox({ bwrapPath: '/nonexistent/bwrap' })).toMatchObject({ kind: 'none', refused: true });
    expect(detectShellSandbox({ bwrapPath: '/nonexistent/bwrap', allowUnsandboxed: true })).toMatchObject({
      kind: 'none',
      refused: false,
    });
  });

  it('reports a bwrap that cannot set up the sandbox with its own words', () => {
    // `false` stands in for a bwrap that fails (no user namespaces): the probe says what it said.
    const sandbox = detectShellSandbox({ bwrapPath: '/usr/bin/false' });
    expect(sandbox).toMatchObject({ kind: 'none', available: false, refused: true });
    expect(sandbox.reason).toMatch(/^bubblewrap does not work here: /);
  });
});

/**
 * What the networked sandbox needs here: slirp4netns, and /dev/net/tun usable by this user.
 * `.ci/run` and `npm test` install slirp4netns and run as root, so there these tests run.
 */
const networkMissing = networkProblem(findSlirp4netns(), '/bin/sh');
/** An address of this machine other than loopback, as another host on the network would reach it. */
const externalAddress =
  Object.values(os.networkInterfaces())
    .flat()
    .find((address) => address && address.family === 'IPv4' && !address.internal)?.address ?? null;

/** A TCP server saying `hello from <name>` to each connection, on `host`, closed after the test. */
async function helloServer(host: string, name: string): Promise<{ port: number; close(): void }> {
  const server = net.createServer((socket) => socket.end(`hello from ${name}\n`));
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { port: (server.address() as net.AddressInfo).port, close: () => server.close() };
}

/** bash's own TCP client: no curl needed; prints what the server says, fails when it cannot connect. */
const tcpRead = (host: string, port: number) => ['bash', '-c', `exec 3<>/dev/tcp/${host}/${port} && cat <&3`];

/** The slirp4netns processes this process started (its children), from /proc. */
function ownSlirps(): number[] {
  return processesWith('slirp4netns').flatMap(({ pid }) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      return parent === process.pid ? [pid] : [];
    } catch {
      return [];
    }
  });
}

describe.skipIf(networkMissing !== null)(
  `the sandbox's network with shell.network${networkMissing ? ` (skipped: ${networkMissing})` : ''}`,
  () => {
    const sandbox = () => detectShellSandbox({ network: true });
    const shell = (allow: string[]) => createRunShellTool({ workspace, allow, sandbox: sandbox() });

    it("is a network namespace of the sandbox's own, through slirp4netns, and says so", () => {
      expect(sandbox()).toMatchObject({ kind: 'bubblewrap', network: true, refused: false, reason: null });
      expect(sandbox().slirp4netns).toMatch(/slirp4netns$/);
      expect(shellSandboxJson(sandbox())).toEqual({
        kind: 'bubblewrap',
        available: true,
        network: true,
        run_shell: 'sandboxed',
      });
      expect(describeShellSandbox(sandbox())).toBe(
        "run_shell: programs run in a bubblewrap sandbox (workspace only, with network through slirp4netns, not the host's loopback)",
      );
    });

    it("never reaches a server on the host's loopback: not as 127.0.0.1, localhost or slirp's gateway", async () => {
      const server = await helloServer('127.0.0.1', 'the host loopback');
      try {
        for (const host of ['127.0.0.1', 'localhost', '10.0.2.2']) {
          const output = await shell(['bash']).execute({ command: tcpRead(host, server.port) }, createTestContext());
          expect(output.exitCode, host).not.toBe(0);
          expect(output.stdout, host).not.toContain('hello');
        }
      } finally {
        server.close();
      }
    });

    // The server stands for a host elsewhere: it listens in the host's network namespace on the
    // host's own network address, which the sandbox reaches only the way it would reach another
    // machine, through slirp4netns's outbound sockets. Offline and deterministic: no DNS, no
    // route beyond this machine. The program connects first thing, so it also shows that it
    // starts only once the network is up.
    it.skipIf(externalAddress === null)(
      `reaches a server on this machine's network address${externalAddress ? '' : ' (skipped: no address but loopback here)'}`,
      async () => {
        const server = await helloServer(externalAddress as string, 'the network');
        try {
          const output = await shell(['bash']).execute(
            { command: tcpRead(externalAddress as string, server.port) },
            createTestContext(),
          );
          expect(output).toMatchObject({ exitCode: 0, stdout: 'hello from the network\n' });
        } finally {
          server.close();
        }
      },
    );

    it("names slirp's DNS forwarder in the sandbox's resolv.conf", async () => {
      const output = await shell(['cat']).execute({ command: ['cat', '/etc/resolv.conf'] }, createTestContext());
      expect(output.stdout).toBe('nameserver 10.0.2.3\n');
    });

    it('stops slirp4netns, by pid, when the program ends or is cancelled', async () => {
      expect(ownSlirps()).toEqual([]);
      await shell(['true']).execute({ command: ['true'] }, createTestContext());
      await waitUntil(() => ownSlirps().length === 0, 1_000);

      const marker = sleepMarker();
      const controller = new AbortController();
      const running = Promise.resolve(
        shell(['sleep']).execute({ command: ['sleep', marker] }, createTestContext({ signal: controller.signal })),
      );
      running.catch(() => {});
      await waitUntil(() => ownSlirps().length === 1 && processesWith(marker).length > 0);
      controller.abort(new Error('cancelled by the test'));
      await expect(running).rejects.toThrow('cancelled by the test');
      await waitUntil(() => ownSlirps().length === 0 && processesWith(marker).length === 0, 1_000);
    });

    it('leaves neither the program nor slirp4netns running when the server is killed, during the setup or after', async () => {
      const before = new Set(processesWith('slirp4netns').map(({ pid }) => pid));
      const newSlirps = () => processesWith('slirp4netns').filter(({ pid }) => !before.has(pid));
      // 0 and 40 ms into the launch: during the network's setup; then once the program runs.
      for (const when of [0, 40, 'running'] as const) {
        const marker = sleepMarker();
        const host = spawn(process.execPath, ['--import', 'tsx', HOST_SCRIPT, workspace, 'auto', marker, 'network'], {
          stdio: ['ignore', 'ignore', 'inherit'],
        });
        const launched = () => processesWith(marker).filter(({ pid }) => pid !== host.pid);
        try {
          await waitUntil(() => launched().length > 0, 20_000);
          if (when === 'running') {
            await waitUntil(() => launched().some(({ cmdline }) => cmdline.startsWith('sleep ')));
            expect(newSlirps()).toHaveLength(1);
          } else {
            await new Promise((resolve) => setTimeout(resolve, when));
          }
          host.kill('SIGKILL');
          await waitUntil(() => launched().length === 0 && newSlirps().length === 0, 1_000).catch(() => {
            throw new Error(`killed (${when}), still running: ${JSON.stringify([...launched(), ...newSlirps()])}`);
          });
        } finally {
          host.kill('SIGKILL');
        }
      }
    }, 60_000);

    it('fails with SANDBOX_NETWORK_FAILED, and runs nothing, when slirp4netns fails', async () => {
      // `false` stands in for a slirp4netns that cannot set up the network.
      const broken = detectShellSandbox({ network: true, slirp4netnsPath: '/usr/bin/false' });
      const tool = createRunShellTool({ workspace, allow: ['sh'], sandbox: broken });
      const error = await expectToolError(async () =>
        tool.execute({ command: ['sh', '-c', 'echo ran > ran.txt'] }, createTestContext()),
      );
      expect(error).toMatchObject({ code: 'SANDBOX_NETWORK_FAILED', kind: 'temporary' });
      expect(error.message).toMatch(
        /^The sandbox's network could not be set up \(slirp4netns: .*\); the program did not run\.$/,
      );
      expect(fs.existsSync(path.join(workspace, 'ran.txt'))).toBe(false);
    });
  },
);

describe('shell.network without slirp4netns', () => {
  it('refuses run_shell from the start with the reason, instead of sharing the host network', async () => {
    const sandbox = detectShellSandbox({ network: true, slirp4netnsPath: '/nonexistent/slirp4netns' });
    expect(sandbox).toMatchObject({ kind: 'bubblewrap', network: true, refused: true });
    expect(shellSandboxJson(sandbox)).toEqual({
      kind: 'bubblewrap',
      available: true,
      reason:
        "shell.network is on, but slirp4netns is not installed (apt-get install slirp4netns): without it programs would share the host's network, Toolscope's own port included",
      network: true,
      run_shell: 'refused',
    });
    expect(describeShellSandbox(sandbox)).toMatch(/^run_shell: REFUSED \(shell\.network is on, but slirp4netns/);
    const tool = createRunShellTool({ workspace, allow: ['echo'], sandbox, configFile: '/srv/toolscope.config.json' });
    expect(tool.checkPermission?.({ command: ['echo', 'hi'] })).toMatchObject({
      check: 'shell sandbox',
      message: expect.stringMatching(/^run_shell is off: shell\.network is on, but slirp4netns is not installed/),
      hint: expect.stringContaining('shell.network in /srv/toolscope.config.json'),
      details: { sandbox: 'bubblewrap', network: true },
    });
    const error = await expectToolError(async () => tool.execute({ command: ['echo', 'hi'] }, createTestContext()));
    expect(error).toMatchObject({ code: 'PERMISSION_DENIED', kind: 'permission', details: { check: 'shell sandbox' } });
  });
});
