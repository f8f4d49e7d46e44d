import { describe, expect, it } from 'vitest';
import { testToolscopes } from '../../server/testing/test-toolscopes';
import { sendJson } from '../testing/call-app';

/** A key's tool list has the one glob grammar of rules: what it cannot match exactly is a 400. */
const toolscopes = testToolscopes('toolscope-keys-tools-');

describe('POST /api/v1/keys with tools', () => {
  it('refuses a tool glob with syntax we do not match (extglob, braces), naming it; takes * and names', async () => {
    const ts = toolscopes.start(toolscopes.dataDir());
    for (const glob of ['+(calc|calculator)', 'http_{get,request}', 'read_[ab]*']) {
      const refused = await sendJson(ts, 'POST', '/api/v1/keys', {
        name: 'agent-1',
        role: 'agent',
        tools: ['calculator', glob],
      });
      expect(refused.status).toBe(400);
      expect(refused.json.error.code).toBe('INVALID_REQUEST');
      expect(refused.json.error.message).toMatch(/^tools\[1\]: /);
    }
    expect(ts.access.keys.list()).toEqual([]);
    const made = await sendJson(ts, 'POST', '/api/v1/keys', {
      name: 'agent-1',
      role: 'agent',
      tools: ['calculator', 'http_*'],
    });
    expect(made.status).toBe(201);
  });
});
