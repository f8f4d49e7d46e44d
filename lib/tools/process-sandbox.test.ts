import { mkdir, realpath } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeShellSandbox, detectShellSandbox, shellSandboxJson } from './process-sandbox';
import { createRunShellTool } from './run-shell';
import { createTempDir, createTestContext, expectToolError } from './test-helpers';

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

  it('keeps the host network with shell.network', async () => {
    const server = net.createServer((socket) => socket.end('hello from the host\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    try {
      const sandbox = detectShellSandbox({ network: true });
      expect(shellSandboxJson(sandbox)).toMatchObject({ kind: 'bubblewrap', network: true });
      const tool = createRunShellTool({ workspace, allow: ['bash'], sandbox });
      const output = await tool.execute(
        { command: ['bash', '-c', `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`] },
        createTestContext(),
      );
      expect(output.stdout).toBe('hello from the host\n');
    } finally {
      server.close();
    }
  });
});
