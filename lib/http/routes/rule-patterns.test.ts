import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../config';
import { testToolscopes } from '../../server/testing/test-toolscopes';
import { sendJson } from '../testing/call-app';

/** Patterns in permission and fault rules through the HTTP app: what is refused, and what a rule takes. */
const toolscopes = testToolscopes('toolscope-rule-patterns-');

// picomatch compiled this extglob to a backtracking regular expression: a 28-letter subject took seconds.
const STALLING = '+(*a)x';

describe('rule patterns through the API', () => {
  it('PUT /api/v1/policy and its preview refuse a pattern that would backtrack or that uses unsupported glob syntax', async () => {
    const ts = toolscopes.start(toolscopes.dataDir());
    const body = {
      rules: [
        { list: 'allow', rule: 'read_file' },
        { list: 'deny', rule: `write_file(${STALLING})` },
        { list: 'ask', rule: 'run_shell(git {push,pull} *)' },
        { list: 'deny', rule: 'http_request(https://user@api.example.com/*)' },
      ],
    };
    const put = await sendJson(ts, 'PUT', '/api/v1/policy', body);
    expect(put.status).toBe(400);
    expect(put.json.error.code).toBe('INVALID_RULES');
    expect(put.json.error.details.errors).toEqual([
      { path: 'rules[1].rule', message: expect.stringMatching(/^Bad specifier for write_file .*extglob "\+\(…\)"/) },
      { path: 'rules[2].rule', message: expect.stringMatching(/^Bad specifier for run_shell .*braces "\{a,b\}"/) },
      { path: 'rules[3].rule', message: expect.stringMatching(/^Bad specifier for http_request .*userinfo/) },
    ]);
    expect(ts.policy.rules().filter((rule) => rule.source === 'data')).toEqual([]);
    const preview = await sendJson(ts, 'POST', '/api/v1/policy/preview', body);
    expect(preview.status).toBe(400);
    expect(preview.json.error.details.errors).toHaveLength(3);
  });

  it('POST and PATCH /api/v1/faults refuse such a tool glob, naming the field', async () => {
    const ts = toolscopes.start(toolscopes.dataDir());
    const created = await sendJson(ts, 'POST', '/api/v1/faults', { name: 'x', tool: STALLING, kind: 'timeout' });
    expect(created).toMatchObject({
      status: 400,
      json: {
        error: { code: 'INVALID_FAULT_RULE', message: expect.stringMatching(/^tool: not a valid glob: extglob/) },
      },
    });
    const ok = await sendJson(ts, 'POST', '/api/v1/faults', { name: 'x', tool: 'fs__*', kind: 'timeout' });
    expect(ok.status).toBe(201);
    const patched = await sendJson(ts, 'PATCH', `/api/v1/faults/${ok.json.id}`, { tool: 'fs__{read,write}' });
    expect(patched).toMatchObject({
      status: 400,
      json: {
        error: { code: 'INVALID_FAULT_RULE', message: expect.stringMatching(/^tool: not a valid glob: braces/) },
      },
    });
    expect(ts.faults.list().map((rule) => rule.tool)).toEqual(['fs__*']);
  });

  it('refuses to start with such a rule in the config file, naming its path', () => {
    const dir = toolscopes.dataDir({ permissions: { allow: ['read_file'], deny: [`read_file(${STALLING})`] } });
    const start = () => toolscopes.start(dir);
    expect(start).toThrow(ConfigError);
    expect(start).toThrow(/permissions\.deny\.0: Bad specifier for read_file .*extglob/);
  });

  it('denies a subcommand wherever options put it: deny run_shell(git * push *)', async () => {
    const ts = toolscopes.start(
      toolscopes.dataDir({ shell: { allow: ['git'] }, permissions: { deny: ['run_shell(git * push *)'] } }),
    );
    const call = async (command: string[]) => {
      const answer = await sendJson(ts, 'POST', '/api/v1/tool-calls', {
        tool_calls: [
          { id: 'c', type: 'function', function: { name: 'run_shell', arguments: JSON.stringify({ command }) } },
        ],
      });
      return answer.json.results[0].error;
    };
    for (const command of [
      ['git', 'push'],
      ['git', '-C', 'dir', 'push'],
      ['git', '-c', 'k=v', 'push', 'origin'],
    ]) {
      expect(await call(command)).toMatchObject({
        code: 'PERMISSION_DENIED',
        details: { policy: 'deny', rule: 'deny run_shell(git * push *)' },
      });
    }
  });
});
