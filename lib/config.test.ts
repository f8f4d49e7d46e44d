import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConfigError,
  DEFAULT_APPROVAL_TIMEOUT_MS,
  DEFAULT_LIMITS,
  DEFAULT_RETENTION,
  loadConfig,
  workspaceProblem,
} from './config';
import { createToolscope } from './server/create-toolscope';

const dirs: string[] = [];
function tempDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-config-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('loadConfig', () => {
  it('defaults to .toolscope/ with its workspace, loopback http and a small shell allowlist', () => {
    const cwd = tempDir();
    const config = loadConfig({}, cwd);
    expect(config.dataDir).toBe(path.join(cwd, '.toolscope'));
    expect(config.workspace).toBe(path.join(cwd, '.toolscope', 'workspace'));
    expect(config.dbPath).toBe(path.join(cwd, '.toolscope', 'toolscope.db'));
    expect(config.configPath).toBeNull();
    expect(config.httpAllow).toEqual(['127.0.0.1', 'localhost', '::1']);
    expect(config.shellAllow).toContain('echo');
    expect(config.limits).toEqual(DEFAULT_LIMITS);
  });

  it('reads the server settings from the environment: PORT, HOST, TOOLSCOPE_ALLOWED_HOSTS', () => {
    const cwd = tempDir();
    expect(loadConfig({}, cwd)).toMatchObject({ port: 3000, host: '127.0.0.1', allowedHosts: [] });
    expect(
      loadConfig({ PORT: '4100', HOST: '0.0.0.0', TOOLSCOPE_ALLOWED_HOSTS: ' Devbox.lan, ,box ' }, cwd),
    ).toMatchObject({ port: 4100, host: '0.0.0.0', allowedHosts: ['devbox.lan', 'box'] });
    expect(() => loadConfig({ PORT: 'x' }, cwd)).toThrow(/PORT must be/);
  });

  it('reads toolscope.config.json and TOOLSCOPE_DATA_DIR', () => {
    const cwd = tempDir();
    fs.writeFileSync(
      path.join(cwd, 'toolscope.config.json'),
      JSON.stringify({
        workspace: 'ws',
        policies: { run_shell: 'allow', http_request: 'deny' },
        shell: { allow: ['echo', 'ls'] },
        http: { allow: ['127.0.0.1', 'localhost'] },
        redact: { keys: ['x-session'] },
        limits: { maxBodyBytes: 2048 },
      }),
    );
    const config = loadConfig({ TOOLSCOPE_DATA_DIR: 'data' }, cwd);
    expect(config.dataDir).toBe(path.join(cwd, 'data'));
    expect(config.workspace).toBe(path.join(cwd, 'ws'));
    expect(config.policies).toEqual({ run_shell: 'allow', http_request: 'deny' });
    expect(config.shellAllow).toEqual(['echo', 'ls']);
    expect(config.redactKeys).toEqual(['x-session']);
    expect(config.limits.maxBodyBytes).toBe(2048);
    expect(config.limits.maxTraceBytes).toBe(DEFAULT_LIMITS.maxTraceBytes);
  });

  it('reports every bad field at once, with its path', () => {
    const cwd = tempDir();
    const file = path.join(cwd, 'custom.json');
    fs.writeFileSync(
      file,
      JSON.stringify({ policies: { calculator: 'maybe' }, shell: { allow: ['/bin/sh'] }, unknown: 1 }),
    );
    let message = '';
    try {
      loadConfig({ TOOLSCOPE_CONFIG: 'custom.json' }, cwd);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      message = (error as Error).message;
    }
    expect(message).toContain('policies.calculator');
    expect(message).toContain('shell.allow.0');
    expect(message).toMatch(/unknown|Unrecognized/i);
  });

  it('keeps 30 days of calls by default, and reads a retention from the file', () => {
    const cwd = tempDir();
    expect(loadConfig({}, cwd).retention).toEqual({ maxAgeDays: 30, maxCalls: null });
    expect(DEFAULT_RETENTION).toEqual({ maxAgeDays: 30, maxCalls: null });
    const file = path.join(cwd, 'toolscope.config.json');
    fs.writeFileSync(file, JSON.stringify({ retention: { maxCalls: 100_000 } }));
    expect(loadConfig({}, cwd).retention).toEqual({ maxAgeDays: 30, maxCalls: 100_000 });
    fs.writeFileSync(file, JSON.stringify({ retention: { maxAgeDays: null, maxCalls: null } }));
    expect(loadConfig({}, cwd).retention).toEqual({ maxAgeDays: null, maxCalls: null });
    fs.writeFileSync(file, JSON.stringify({ retention: { maxAgeDays: 0.5 } }));
    expect(loadConfig({}, cwd).retention.maxAgeDays).toBe(0.5);
  });

  it('reports bad retention values clearly', () => {
    const cwd = tempDir();
    const file = path.join(cwd, 'toolscope.config.json');
    const messageFor = (retention: unknown) => {
      fs.writeFileSync(file, JSON.stringify({ retention }));
      try {
        loadConfig({}, cwd);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
      throw new Error(`accepted ${JSON.stringify(retention)}`);
    };
    expect(messageFor({ maxAgeDays: 0 })).toContain('retention.maxAgeDays: must be more than 0 days');
    expect(messageFor({ maxAgeDays: '30' })).toContain('retention.maxAgeDays: a number of days, or null');
    expect(messageFor({ maxCalls: 1.5 })).toContain('retention.maxCalls: must be a whole number of calls');
    expect(messageFor({ maxCalls: -1 })).toContain('retention.maxCalls: must be at least 1 call');
    expect(messageFor({ maxAge: 30 })).toMatch(/retention.*maxAge/);
    const both = messageFor({ maxAgeDays: -1, maxCalls: 'all' });
    expect(both).toContain('retention.maxAgeDays');
    expect(both).toContain('retention.maxCalls');
  });

  it('fails clearly on a missing named file and on invalid JSON', () => {
    const cwd = tempDir();
    expect(() => loadConfig({ TOOLSCOPE_CONFIG: 'missing.json' }, cwd)).toThrow(/does not exist/);
    fs.writeFileSync(path.join(cwd, 'toolscope.config.json'), '{ nope');
    expect(() => loadConfig({}, cwd)).toThrow(/not valid JSON/);
  });

  it('reads permission rules, plain or limited to a session, and reports bad ones with their path', () => {
    const cwd = tempDir();
    const file = path.join(cwd, 'toolscope.config.json');
    expect(loadConfig({}, cwd).permissions).toEqual({ allow: [], ask: [], deny: [] });
    fs.writeFileSync(
      file,
      JSON.stringify({
        permissions: {
          allow: [' run_shell(git status) ', { rule: 'run_shell(npm run *)', session: 's-1' }],
          deny: ['write_file(secrets/**)'],
        },
      }),
    );
    expect(loadConfig({}, cwd).permissions).toEqual({
      allow: [
        { rule: 'run_shell(git status)', session: null },
        { rule: 'run_shell(npm run *)', session: 's-1' },
      ],
      ask: [],
      deny: [{ rule: 'write_file(secrets/**)', session: null }],
    });

    fs.writeFileSync(
      file,
      JSON.stringify({
        permissions: {
          allow: ['read_file', 'write_file(', 'write_file()'],
          ask: [{ rule: 'bad name', session: 's-1' }, 42, { rule: 'read_file' }],
          always: [],
        },
      }),
    );
    let message = '';
    try {
      loadConfig({}, cwd);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      message = (error as Error).message;
    }
    expect(message).toContain('permissions.allow.1: The rule "write_file(" has no closing ")"');
    expect(message).toContain('permissions.allow.2: The rule "write_file()" has an empty specifier');
    expect(message).toContain('permissions.ask.0.rule: The rule names the tool "bad name"');
    expect(message).toContain('permissions.ask.1: a rule such as "run_shell(git status)"');
    expect(message).toContain('permissions.ask.2: a rule such as');
    expect(message).toMatch(/permissions: .*always/i);
    expect(message).not.toContain('permissions.allow.0');
  });

  it('reads approvals: 10 minutes, a wait as long as the timeout, no webhooks by default; user is no longer used', () => {
    const cwd = tempDir();
    const file = path.join(cwd, 'toolscope.config.json');
    expect(loadConfig({}, cwd).approvals).toEqual({
      timeoutMs: DEFAULT_APPROVAL_TIMEOUT_MS,
      waitMs: DEFAULT_APPROVAL_TIMEOUT_MS,
      notify: [],
      linkBase: null,
    });
    expect(DEFAULT_APPROVAL_TIMEOUT_MS).toBe(600_000);
    fs.writeFileSync(file, JSON.stringify({ approvals: { timeoutMs: 60_000, user: 'ana' } }));
    const config = loadConfig({}, cwd);
    expect(config.approvals).toEqual({ timeoutMs: 60_000, waitMs: 60_000, notify: [], linkBase: null });
    expect(config.notes).toEqual([expect.stringContaining('approvals.user is no longer used')]);
    fs.writeFileSync(
      file,
      JSON.stringify({
        approvals: {
          notify: [
            { url: 'https://hooks.example/x', secret: 's3cret' },
            { url: 'https://hooks.slack.com/y', format: 'slack' },
          ],
          link_base: 'https://toolscope.example/',
        },
      }),
    );
    expect(loadConfig({}, cwd).approvals).toMatchObject({
      notify: [
        { url: 'https://hooks.example/x', secret: 's3cret', format: 'json' },
        { url: 'https://hooks.slack.com/y', format: 'slack' },
      ],
      linkBase: 'https://toolscope.example',
    });
    fs.writeFileSync(file, JSON.stringify({ approvals: { notify: [{ url: 'file:///etc/passwd' }] } }));
    expect(() => loadConfig({}, cwd)).toThrow(/approvals\.notify\.0\.url/);
    fs.writeFileSync(file, JSON.stringify({ approvals: { timeoutMs: 60_000, waitMs: 0 } }));
    expect(loadConfig({}, cwd).approvals.waitMs).toBe(0);
    fs.writeFileSync(file, JSON.stringify({ approvals: { timeoutMs: -1, user: '', wait: 1 } }));
    expect(() => loadConfig({}, cwd)).toThrow(/approvals.timeoutMs[\s\S]*approvals.user[\s\S]*wait/);
  });
});

describe('mcp.servers', () => {
  const write = (cwd: string, config: object) =>
    fs.writeFileSync(path.join(cwd, 'toolscope.config.json'), JSON.stringify(config));

  it('reads stdio and HTTP servers with their limits and tool overrides; $NAME references in headers from the environment', () => {
    const cwd = tempDir();
    write(cwd, {
      mcp: {
        servers: {
          fs: {
            command: 'npx',
            args: ['-y', 'x'],
            env: { A: '1' },
            cwd: 'srv',
            tools: { write_file: { side_effect: 'read' } },
            trustAnnotations: true,
            roots: ['notes', '/data'],
          },
          web: {
            url: 'https://mcp.example.com/mcp',
            // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own ${NAME} syntax
            headers: { authorization: 'Bearer ${MCP_TOKEN}' },
            timeout_ms: 5000,
            retries: 2,
          },
        },
      },
    });
    const config = loadConfig({ MCP_TOKEN: 'tok-123' }, cwd);
    expect(config.mcpServers).toEqual([
      {
        name: 'fs',
        transport: 'stdio',
        command: 'npx',
        args: ['-y', 'x'],
        env: { A: '1' },
        cwd: path.join(cwd, 'srv'),
        timeoutMs: 60_000,
        retries: 3,
        trustAnnotations: true,
        roots: [path.join(cwd, 'notes'), '/data'],
        tools: { write_file: { sideEffect: 'read' } },
      },
      {
        name: 'web',
        transport: 'http',
        url: 'https://mcp.example.com/mcp',
        headers: { authorization: 'Bearer tok-123' },
        timeoutMs: 5000,
        retries: 2,
        trustAnnotations: false,
        roots: null,
        tools: {},
      },
    ]);
    expect(loadConfig({}, tempDir()).mcpServers).toEqual([]);
  });

  it('refuses bad servers, one line each: names, both or neither of command and url, misplaced fields, unset variables', () => {
    const cwd = tempDir();
    write(cwd, {
      mcp: {
        servers: {
          a__b: { command: 'x' },
          'bad name': { command: 'x' },
          both: { command: 'x', url: 'http://127.0.0.1/mcp' },
          neither: {},
          stdio: { command: 'x', headers: { a: 'b' } },
          web: { url: 'ftp://x' },
        },
      },
    });
    expect(() => loadConfig({}, cwd)).toThrow(ConfigError);
    let message = '';
    try {
      loadConfig({}, cwd);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('must not contain "__"');
    expect(message).toContain('1-32 letters');
    expect(message).toContain('mcp.servers.both: give either "command"');
    expect(message).toContain('mcp.servers.neither: give either "command"');
    expect(message).toContain('mcp.servers.stdio.headers: "headers" is for HTTP servers');
    expect(message).toContain('mcp.servers.web.url');

    write(cwd, { mcp: { servers: { trusting: { command: 'x', trustAnnotations: 'yes', roots: [] } } } });
    expect(() => loadConfig({}, cwd)).toThrow(
      /mcp\.servers\.trusting\.trustAnnotations[\s\S]*mcp\.servers\.trusting\.roots/,
    );

    // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own ${NAME} syntax
    write(cwd, { mcp: { servers: { web: { url: 'http://127.0.0.1/mcp', headers: { 'x-key': '${NOPE}' } } } } });
    expect(() => loadConfig({}, cwd)).toThrow(
      /mcp\.servers\.web\.headers\.x-key: \$\{NOPE\} is not set in the environment/,
    );
  });
});

describe("a workspace holding Toolscope's own files", () => {
  /** A folder as `npm start` would run in: its config file, and the data folder .toolscope/ in it. */
  function project(config: object) {
    const cwd = fs.realpathSync(tempDir());
    fs.writeFileSync(path.join(cwd, 'toolscope.config.json'), JSON.stringify(config));
    return cwd;
  }

  it('is refused at start: "workspace": "." with the data folder and the config file in it, and nothing is opened', () => {
    const cwd = project({ workspace: '.' });
    const config = loadConfig({}, cwd);
    let error: unknown;
    try {
      createToolscope(config, { otel: null });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      [
        `Invalid configuration in ${cwd}/toolscope.config.json:`,
        `  - workspace: ${cwd} holds Toolscope's own files, which run_shell and the file tools could read and rewrite: the data folder ${cwd}/.toolscope; the config file ${cwd}/toolscope.config.json.`,
        '    Point "workspace" at a folder that holds none of them (e.g. "./workspace" beside the config file), or keep',
        '    the data folder (TOOLSCOPE_DATA_DIR) and the config file (TOOLSCOPE_CONFIG) outside the workspace.',
      ].join('\n'),
    );
    // Refused before anything opened: no data folder, no vault key, no database.
    expect(fs.existsSync(path.join(cwd, '.toolscope'))).toBe(false);
  });

  it('is found through symlinks: a workspace linked to the project, a policy.json or config file linked into it', () => {
    const cwd = project({ workspace: 'ws-link' });
    fs.symlinkSync(cwd, path.join(cwd, 'ws-link'));
    expect(workspaceProblem(loadConfig({}, cwd))).toContain(
      `workspace: ${cwd}/ws-link (${cwd}) holds Toolscope's own files`,
    );

    // The data folder outside, but its policy.json a link into the workspace.
    const outside = fs.realpathSync(tempDir());
    const ws = path.join(outside, 'ws');
    fs.mkdirSync(ws);
    fs.mkdirSync(path.join(outside, 'data'));
    fs.writeFileSync(path.join(ws, 'rules.json'), '{}');
    fs.symlinkSync(path.join(ws, 'rules.json'), path.join(outside, 'data', 'policy.json'));
    fs.writeFileSync(path.join(outside, 'toolscope.config.json'), JSON.stringify({ workspace: 'ws' }));
    const linked = workspaceProblem(loadConfig({ TOOLSCOPE_DATA_DIR: 'data' }, outside));
    expect(linked).toContain(`the permission rules ${outside}/data/policy.json (${ws}/rules.json)`);
    expect(linked).not.toContain(`the data folder ${outside}`);

    // A config file named by TOOLSCOPE_CONFIG inside the workspace.
    fs.writeFileSync(path.join(ws, 'toolscope.config.json'), JSON.stringify({ workspace: '.' }));
    const named = workspaceProblem(
      loadConfig({ TOOLSCOPE_CONFIG: path.join(ws, 'toolscope.config.json') }, fs.realpathSync(tempDir())),
    );
    expect(named).toContain(`the config file ${ws}/toolscope.config.json.`);
  });

  it('leaves the default set-up and a workspace beside the data folder alone', () => {
    expect(workspaceProblem(loadConfig({}, fs.realpathSync(tempDir())))).toBeNull();
    expect(workspaceProblem(loadConfig({}, project({ workspace: './workspace' })))).toBeNull();
    expect(workspaceProblem(loadConfig({ TOOLSCOPE_DATA_DIR: 'data' }, project({ workspace: 'ws' })))).toBeNull();
  });

  it('stops the server at start with the reason and exit code 1, as npm start runs it', async () => {
    const cwd = project({ workspace: '.' });
    // The server's start (lib/server/boot.ts) without Next: what server/main.ts runs first.
    const child = spawn(
      process.execPath,
      [
        '--conditions=react-server',
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        "const { startToolscope } = await import('./lib/server/boot.ts'); startToolscope();",
      ],
      {
        env: {
          ...process.env,
          TOOLSCOPE_CONFIG: path.join(cwd, 'toolscope.config.json'),
          TOOLSCOPE_DATA_DIR: path.join(cwd, '.toolscope'),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let printed = '';
    child.stdout.on('data', (chunk) => {
      printed += chunk;
    });
    child.stderr.on('data', (chunk) => {
      printed += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    expect(printed).toContain(
      `[toolscope] cannot start: Invalid configuration in ${cwd}/toolscope.config.json:\n  - workspace: ${cwd} holds Toolscope's own files`,
    );
    expect(fs.existsSync(path.join(cwd, '.toolscope'))).toBe(false);
  });
});
