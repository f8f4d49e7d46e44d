import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../config';
import { createTempDataDir } from '../../db/test-database';
import { denyUntilApproved } from '../../executor/ports';
import { createToolscope, type Toolscope } from '../../server/create-toolscope';
import { createHttpApp, type HttpApp } from '../app';
import { callApp } from '../testing/call-app';

const temp = createTempDataDir('toolscope-policy-api-');
let ts: Toolscope;
let app: HttpApp;

beforeAll(() => {
  fs.writeFileSync(
    path.join(temp.dir, 'toolscope.config.json'),
    JSON.stringify({
      shell: { allow: ['git', 'echo'] },
      policies: { write_file: 'deny' },
      permissions: {
        allow: ['run_shell(git status)', { rule: 'run_shell(echo *)', session: 'agent-1' }],
        deny: ['write_file(secrets/**)'],
      },
    }),
  );
  // `ask` calls are denied at once here: these tests look at which rule decided, not at the queue.
  ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: 'data' }, temp.dir), { approver: denyUntilApproved });
  app = createHttpApp(ts);
});

afterAll(async () => {
  await app.parts.mcp.close();
  ts.close();
  temp.remove();
});

/**
 * A JSON body through the app in process, sent with its `content-length`: the body limit reads a
 * web request's body only when its headers announce one.
 */
const send = (method: string, path: string, body: unknown, contentType = 'application/json') => {
  const text = JSON.stringify(body);
  return callApp(app, method, path, {
    body: text,
    headers: { 'content-type': contentType, 'content-length': String(Buffer.byteLength(text)) },
  });
};
const put = (body: unknown, contentType?: string) => send('PUT', '/api/v1/policy', body, contentType);
const preview = (body: unknown) => send('POST', '/api/v1/policy/preview', body);

const permissionStage = async (call: { name: string; arguments: unknown }, sessionId: string | null = null) => {
  const result = await ts.executor.execute(call, { sessionId, actor: 'api' });
  const trace = ts.store.get(result.traceId);
  return { result, stage: trace?.stages.find((stage) => stage.name === 'permission') };
};

describe('rules through createToolscope and the executor', () => {
  it('records the rule that decided in the permission stage', async () => {
    const allowed = await permissionStage({ name: 'run_shell', arguments: { command: ['git', 'status'] } });
    expect(allowed.stage).toMatchObject({ status: 'ok', detail: 'allow run_shell(git status)' });

    const inSession = await permissionStage({ name: 'run_shell', arguments: { command: ['echo', 'hi'] } }, 'agent-1');
    expect(inSession.stage?.detail).toBe('allow run_shell(echo *) [session agent-1]');
    expect(inSession.result.success).toBe(true);

    const otherSession = await permissionStage({ name: 'run_shell', arguments: { command: ['echo', 'hi'] } }, 'x');
    expect(otherSession.result.error).toMatchObject({
      code: 'PERMISSION_DENIED',
      details: { policy: 'ask', rule: 'default for exec: ask' },
    });

    const denied = await permissionStage({
      name: 'write_file',
      arguments: { path: './notes/../secrets/key', content: 'x' },
    });
    expect(denied.result.error).toMatchObject({
      code: 'PERMISSION_DENIED',
      details: { policy: 'deny', rule: 'deny write_file(secrets/**)' },
    });
    const byPolicies = await permissionStage({ name: 'write_file', arguments: { path: 'notes/a.md', content: 'x' } });
    expect(byPolicies.result.error?.details?.rule).toBe('policies.write_file = deny');
  });

  it('answers the tools pages from tool-wide rules and the default', () => {
    expect(ts.toolPolicy('run_shell', 'exec')).toBe('ask');
    expect(ts.toolPolicy('write_file', 'write')).toBe('deny');
    expect(ts.toolPolicy('read_file', 'read')).toBe('allow');
  });

  it('refuses to start with a rule for an unknown tool or a specifier a tool does not take', () => {
    const dir = path.join(temp.dir, 'bad');
    fs.mkdirSync(dir);
    const file = path.join(dir, 'toolscope.config.json');
    fs.writeFileSync(
      file,
      JSON.stringify({ permissions: { allow: ['read_file', 'nope(x)'], ask: ['calculator(1+1)'] } }),
    );
    const start = () => createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: 'data' }, dir));
    expect(start).toThrow(ConfigError);
    expect(start).toThrow(
      new RegExp(
        `Invalid configuration in ${file}:\\n {2}- permissions.allow.1: The rule names the tool "nope", which is not registered.\\n {2}- permissions.ask.0: calculator takes no specifier`,
      ),
    );
  });
});

describe('GET and PUT /api/v1/policy', () => {
  it('lists every rule with its source and the config file', async () => {
    const response = await callApp(app, 'GET', '/api/v1/policy');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      rules: [
        { id: 'config-allow-0', list: 'allow', rule: 'run_shell(git status)', session: null, source: 'config' },
        { id: 'config-allow-1', list: 'allow', rule: 'run_shell(echo *)', session: 'agent-1', source: 'config' },
        { id: 'config-deny-0', list: 'deny', rule: 'write_file(secrets/**)', session: null, source: 'config' },
      ],
      config_file: path.join(temp.dir, 'toolscope.config.json'),
    });
  });

  it('replaces the data rules, which decide the next calls and are kept in policy.json', async () => {
    const response = await put({
      rules: [
        { list: 'allow', rule: 'write_file(notes/**)' },
        { list: 'ask', rule: 'run_shell(echo secret *)', session: 'agent-1' },
      ],
    });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.rules.filter((rule: { source: string }) => rule.source === 'data')).toEqual([
      { id: expect.stringMatching(/^r-/), list: 'allow', rule: 'write_file(notes/**)', session: null, source: 'data' },
      {
        id: expect.stringMatching(/^r-/),
        list: 'ask',
        rule: 'run_shell(echo secret *)',
        session: 'agent-1',
        source: 'data',
      },
    ]);
    expect(body.rules).toHaveLength(5);
    const stored = JSON.parse(fs.readFileSync(path.join(ts.config.dataDir, 'policy.json'), 'utf8'));
    expect(stored.rules.map((rule: { rule: string }) => rule.rule)).toEqual([
      'write_file(notes/**)',
      'run_shell(echo secret *)',
    ]);
    const written = await permissionStage({ name: 'write_file', arguments: { path: 'notes/a.md', content: 'x' } });
    expect(written.stage?.detail).toBe('allow write_file(notes/**)');
    expect(written.result.success).toBe(true);

    expect((await put({ rules: [] })).status).toBe(200);
    expect(ts.policy.rules().filter((rule) => rule.source === 'data')).toEqual([]);
  });

  it('answers 400 with a field error per bad rule, and saves nothing', async () => {
    await put({ rules: [{ list: 'allow', rule: 'read_file' }] });
    const response = await put({
      rules: [
        { list: 'allow', rule: 'read_file' },
        { list: 'allow', rule: 'nope' },
        { list: 'deny', rule: 'write_file(' },
        { list: 'maybe', rule: 'read_file' },
      ],
    });
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.error.code).toBe('INVALID_RULES');
    expect(body.error.details.errors).toEqual([{ path: 'rules[3].list', message: expect.any(String) }]);

    const second = await put({
      rules: [
        { list: 'allow', rule: 'read_file' },
        { list: 'allow', rule: 'nope' },
        { list: 'deny', rule: 'write_file(' },
      ],
    });
    const errors = (await second.json()).error;
    expect(errors.message).toMatch(/^rules\[1\]\.rule: The rule names the tool "nope".*\(and 1 more\)$/);
    expect(errors.details.errors).toEqual([
      { path: 'rules[1].rule', message: 'The rule names the tool "nope", which is not registered.' },
      { path: 'rules[2].rule', message: expect.stringMatching(/no closing/) },
    ]);
    expect(
      ts.policy
        .rules()
        .filter((rule) => rule.source === 'data')
        .map((rule) => rule.rule),
    ).toEqual(['read_file']);
  });

  it('takes JSON only', async () => {
    const response = await put({ rules: [] }, 'text/plain');
    expect(response.status).toBe(415);
    expect((await response.json()).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });
});

describe('POST /api/v1/policy/preview', () => {
  it('decides the recorded calls with the draft rules and lists those whose policy changes', async () => {
    await put({ rules: [] });
    const status = await ts.executor.execute({ name: 'run_shell', arguments: { command: ['git', 'status'] } });
    const log = await ts.executor.execute({ name: 'run_shell', arguments: { command: ['git', 'log'] } });
    await ts.executor.execute({ name: 'no_such_tool', arguments: {} });
    const before = ts.policy.rules();

    const response = await preview({ rules: [{ list: 'deny', rule: 'run_shell(git *)' }] });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.calls).toBe(ts.recentCalls(1000).length);
    expect(body.skipped).toBeGreaterThanOrEqual(1);
    expect(body.counts.allow + body.counts.ask + body.counts.deny + body.skipped).toBe(body.calls);
    expect(body.arguments_redacted).toBe(true);
    const changed = new Map(body.changed.map((call: { trace_id: string }) => [call.trace_id, call]));
    expect(changed.get(status.traceId)).toEqual({
      trace_id: status.traceId,
      tool: 'run_shell',
      arguments: { command: ['git', 'status'] },
      before: { policy: 'allow', rule: 'allow run_shell(git status)' },
      after: { policy: 'deny', rule: 'deny run_shell(git *)' },
    });
    expect(changed.get(log.traceId)).toMatchObject({
      before: { policy: 'ask', rule: 'default for exec: ask' },
      after: { policy: 'deny' },
    });
    // Nothing saved: the preview leaves the rules in force as they were.
    expect(ts.policy.rules()).toEqual(before);
  });

  it('refuses bad draft rules like PUT', async () => {
    const response = await preview({ rules: [{ list: 'allow', rule: 'run_shell(' }] });
    expect(response.status).toBe(400);
    expect((await response.json()).error.details.errors[0].path).toBe('rules[0].rule');
  });
});
