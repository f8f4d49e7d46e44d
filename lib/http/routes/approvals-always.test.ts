import { describe, expect, it } from 'vitest';
import type { Toolscope } from '../../server/create-toolscope';
import { testToolscopes } from '../../server/testing/test-toolscopes';
import { sendJson } from '../testing/call-app';

/**
 * "Always allow" makes only rules that will apply: a rule an ask or deny rule would shadow for
 * the call it is made for is refused (409 RULE_SHADOWED, naming that rule), and "only in this
 * session" on a call of no session is a 400. Either way nothing is saved and the call stays pending.
 */
const toolscopes = testToolscopes('toolscope-approvals-always-');

const writeCall = (id: string, file: string, sessionId?: string) => ({
  ...(sessionId ? { session_id: sessionId } : {}),
  wait: false,
  tool_calls: [
    { id, type: 'function', function: { name: 'write_file', arguments: JSON.stringify({ path: file, content: 'x' }) } },
  ],
});

async function pendingCall(ts: Toolscope, id: string, file: string, sessionId?: string): Promise<string> {
  const answer = await sendJson(ts, 'POST', '/api/v1/tool-calls', writeCall(id, file, sessionId));
  expect(answer.json.results[0].status).toBe('awaiting_approval');
  return answer.json.results[0].trace_id;
}

const decide = (ts: Toolscope, traceId: string, body: object) =>
  sendJson(ts, 'POST', `/api/v1/approvals/${encodeURIComponent(traceId)}`, body);

const dataRules = (ts: Toolscope) => ts.policy.rules().filter((rule) => rule.source === 'data');

describe('"always allow" makes only rules that apply', () => {
  it('suggests the exact subject, glob characters escaped: a rule for the path w/* allows that file, not its folder', async () => {
    const ts = toolscopes.start(toolscopes.dataDir());
    const traceId = await pendingCall(ts, 'w0', 'w/*');
    const listed = (await sendJson(ts, 'GET', '/api/v1/approvals')).json.approvals;
    expect(listed[0].suggested_specifier).toBe('w/\\*');
    const made = await decide(ts, traceId, {
      decision: 'approve',
      always: { specifier: listed[0].suggested_specifier },
    });
    expect(made.json.rule_created).toBe('write_file(w/\\*)');
    // The same path again runs unasked; another file of that folder still asks.
    const again = await sendJson(ts, 'POST', '/api/v1/tool-calls', writeCall('w0b', 'w/*'));
    expect(again.json.results[0].status).toBe('succeeded');
    const sibling = await sendJson(ts, 'POST', '/api/v1/tool-calls', writeCall('w0c', 'w/other.txt'));
    expect(sibling.json.results[0].status).toBe('awaiting_approval');
  });

  it('refuses an allow rule an ask rule decides before it, naming that rule; the call stays pending', async () => {
    const ts = toolscopes.start(toolscopes.dataDir({ permissions: { ask: ['write_file(locked/**)'] } }));
    const traceId = await pendingCall(ts, 'w1', 'locked/a.txt');

    for (const specifier of ['locked/a.txt', 'locked/**', undefined]) {
      const refused = await decide(ts, traceId, { decision: 'approve', always: specifier ? { specifier } : {} });
      expect(refused.status).toBe(409);
      expect(refused.json.error).toMatchObject({
        code: 'RULE_SHADOWED',
        details: { rule: 'ask write_file(locked/**)' },
      });
      expect(refused.json.error.message).toMatch(/would never apply to this call/);
      expect(refused.json.error.message).toContain('toolscope.config.json');
    }
    expect(dataRules(ts)).toEqual([]);
    expect(ts.approvals.get(traceId)).not.toBeNull();

    // A call the ask rule does not decide gets its rule.
    const other = await pendingCall(ts, 'w2', 'notes/b.txt');
    const made = await decide(ts, other, { decision: 'approve', always: { specifier: 'notes/b.txt' } });
    expect(made.status).toBe(200);
    expect(made.json.rule_created).toBe('write_file(notes/b.txt)');
  });

  it('refuses an allow rule a deny rule made meanwhile would shadow', async () => {
    const ts = toolscopes.start(toolscopes.dataDir());
    const traceId = await pendingCall(ts, 'w3', 'drafts/c.txt');
    expect(
      (await sendJson(ts, 'PUT', '/api/v1/policy', { rules: [{ list: 'deny', rule: 'write_file(drafts/**)' }] }))
        .status,
    ).toBe(200);
    const refused = await decide(ts, traceId, { decision: 'approve', always: { specifier: 'drafts/c.txt' } });
    expect(refused.status).toBe(409);
    expect(refused.json.error.details.rule).toBe('deny write_file(drafts/**)');
  });

  it('refuses "only in this session" for a call of no session with a 400; in a session the rule is that session\'s', async () => {
    const ts = toolscopes.start(toolscopes.dataDir());
    const loose = await pendingCall(ts, 'w4', 'notes/d.txt');
    const refused = await decide(ts, loose, {
      decision: 'approve',
      always: { specifier: 'notes/d.txt', session: true },
    });
    expect(refused.status).toBe(400);
    expect(refused.json.error.code).toBe('INVALID_RULE');
    expect(refused.json.error.message).toMatch(/belongs to no session/);
    expect(dataRules(ts)).toEqual([]);
    expect(ts.approvals.get(loose)).not.toBeNull();

    const inSession = await pendingCall(ts, 'w5', 'notes/e.txt', 'run-1');
    const made = await decide(ts, inSession, {
      decision: 'approve',
      always: { specifier: 'notes/e.txt', session: true },
    });
    expect(made.status).toBe(200);
    expect(dataRules(ts)).toEqual([
      expect.objectContaining({ list: 'allow', rule: 'write_file(notes/e.txt)', session: 'run-1' }),
    ]);
  });
});

describe('an approval with edited arguments and a recorded secret', () => {
  it('refuses an edit that sends the kept secret to another origin; the call stays pending', async () => {
    const ts = toolscopes.start(toolscopes.dataDir({ policies: { http_request: 'ask' } }));
    const secret = 'sk-live-abcdefghijklmnop5678';
    const answer = await sendJson(ts, 'POST', '/api/v1/tool-calls', {
      wait: false,
      tool_calls: [
        {
          id: 'h1',
          type: 'function',
          function: {
            name: 'http_request',
            arguments: JSON.stringify({ url: 'http://127.0.0.1:9/a', headers: { Authorization: `Bearer ${secret}` } }),
          },
        },
      ],
    });
    const traceId = answer.json.results[0].trace_id;
    const [pending] = (await sendJson(ts, 'GET', '/api/v1/approvals')).json.approvals;
    expect(pending.arguments.headers.Authorization).toBe('[REDACTED]');
    const moved = await decide(ts, traceId, {
      decision: 'approve',
      arguments: { ...pending.arguments, url: 'http://127.0.0.1:10/steal' },
    });
    expect(moved.status).toBe(400);
    expect(moved.json.error.code).toBe('INVALID_ARGUMENTS');
    expect(moved.json.error.message).toMatch(/headers\.Authorization: holds \[REDACTED\], a recorded secret/);
    expect(ts.approvals.get(traceId)).not.toBeNull();
  });
});
