import { describe, expect, it } from 'vitest';
import { auditFiltersOf, auditSearch, isFiltered } from './audit-api';
import { detailSummary, targetHref } from './audit-summary';

const rule = (over: Record<string, unknown> = {}) => ({
  id: 'fr_1',
  name: 'flaky http',
  enabled: true,
  tool: 'http_*',
  kind: 'fail_first',
  params: { n: 2 },
  probability: 1,
  hits: 4,
  updated_at: '2025-01-01T00:00:00.000Z',
  active: true,
  ...over,
});

describe('detailSummary', () => {
  it('says a decision, its tool, reason, edit and rule', () => {
    expect(
      detailSummary({
        kind: 'approval.decided',
        detail: {
          decision: 'approve',
          tool: 'write_file',
          reason: 'looks fine',
          edited_arguments: true,
          rule_created: 'write_file(notes/**)',
        },
      }),
    ).toBe('approved write_file · “looks fine” · arguments edited · rule added: write_file(notes/**)');
    expect(
      detailSummary({
        kind: 'approval.decided',
        detail: { decision: 'deny', tool: 'shell', reason: null, edited_arguments: false, rule_created: null },
      }),
    ).toBe('denied shell');
  });

  it('lists the rules a policy change added and removed', () => {
    expect(
      detailSummary({
        kind: 'policy.changed',
        detail: {
          before: [{ list: 'deny', rule: 'shell', session: null }],
          after: [
            { list: 'allow', rule: 'write_file(notes/**)', session: null },
            { list: 'ask', rule: 'http_get', session: 's1' },
          ],
        },
      }),
    ).toBe('1 → 2 rules: +allow write_file(notes/**), +ask http_get (session s1), −deny shell');
  });

  it("names a fault rule update's changed fields, not its counters", () => {
    expect(
      detailSummary({
        kind: 'fault_rule.updated',
        detail: { before: rule(), after: rule({ enabled: false, hits: 0, active: false, updated_at: 'later' }) },
      }),
    ).toBe('flaky http: enabled true→false, hits reset');
    expect(detailSummary({ kind: 'fault_rule.created', detail: { after: rule() } })).toBe(
      'flaky http: fail_first on http_*',
    );
    expect(detailSummary({ kind: 'fault_rules.reset', detail: { deleted: 1 } })).toBe('deleted 1 rule');
  });

  it("says a key's role and scope", () => {
    expect(
      detailSummary({
        kind: 'key.created',
        detail: {
          name: 'ci',
          role: 'agent',
          tools: ['read_file', 'http_*'],
          permissions: { allow: ['a', 'b'], ask: [], deny: ['c'] },
        },
      }),
    ).toBe('ci (agent) · tools read_file, http_* · 2 allow · 1 deny');
    expect(
      detailSummary({ kind: 'key.created', detail: { name: 'alice', role: 'admin', permissions: null, tools: null } }),
    ).toBe('alice (admin)');
  });

  it('summarises replays, deletions, imports and failed notices', () => {
    expect(detailSummary({ kind: 'trace.replayed', detail: { edited_arguments: false, fault: null } })).toBe(
      'as recorded',
    );
    expect(
      detailSummary({
        kind: 'session.replayed',
        detail: { into: 's2', calls: 3, fault: { kind: 'latency', params: { ms: 100 } } },
      }),
    ).toBe('3 calls into s2 · with fault latency');
    expect(detailSummary({ kind: 'session.deleted', detail: { deleted: 5, skipped_running: 1 } })).toBe(
      '5 calls deleted, 1 running kept',
    );
    expect(detailSummary({ kind: 'calls.imported', detail: { kind: 'session', imported: 1, trace_ids: ['t'] } })).toBe(
      '1 call imported (session)',
    );
    expect(
      detailSummary({
        kind: 'notify.failed',
        detail: { target: 'https://hooks.example/x', type: 'requested', trace_id: 't', error: 'HTTP 500', attempts: 3 },
      }),
    ).toBe('requested notice · to https://hooks.example/x · 3 attempts · HTTP 500');
  });

  it('is empty for a bare entry, key=value for an unknown kind, and cut when long', () => {
    expect(detailSummary({ kind: 'login', detail: {} })).toBe('');
    expect(detailSummary({ kind: 'something.new', detail: { a: 1, b: 'x', c: null, d: [1] } })).toBe(
      'a=1 · b=x · d=[1]',
    );
    const long = detailSummary({ kind: 'trace.cancelled', detail: { tool: 'shell', reason: 'x'.repeat(400) } });
    expect(long.length).toBe(160);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe('targetHref', () => {
  it('links traces, sessions and fault rules; not keys or logins', () => {
    expect(targetHref({ kind: 'approval.decided', target: 't 1' })).toBe('/traces/t%201');
    expect(targetHref({ kind: 'trace.cancelled', target: 't1' })).toBe('/traces/t1');
    expect(targetHref({ kind: 'notify.failed', target: 't1' })).toBe('/traces/t1');
    expect(targetHref({ kind: 'session.replayed', target: 's1' })).toBe('/sessions/s1');
    expect(targetHref({ kind: 'calls.imported', target: 's1' })).toBe('/sessions/s1');
    expect(targetHref({ kind: 'fault_rule.updated', target: 'fr_1' })).toBe('/faults?rule=fr_1');
    expect(targetHref({ kind: 'key.revoked', target: 'key_1' })).toBeNull();
    expect(targetHref({ kind: 'login', target: 'key_1' })).toBeNull();
    expect(targetHref({ kind: 'trace.deleted', target: null })).toBeNull();
  });
});

describe('audit filters', () => {
  const kinds = ['login', 'key.created'];

  it('reads the query, dropping an unknown kind and trimming', () => {
    expect(auditFiltersOf({ kind: 'nope', principal: ' alice ', target: ['t1', 't2'] }, kinds)).toEqual({
      kind: '',
      principal: 'alice',
      target: 't1',
    });
    expect(auditFiltersOf({ kind: 'login' }, kinds)).toEqual({ kind: 'login', principal: '', target: '' });
  });

  it('writes only what is set', () => {
    expect(auditSearch({ kind: '', principal: '', target: '' })).toBe('');
    expect(auditSearch({ kind: 'key.created', principal: '', target: 'a b' })).toBe('?kind=key.created&target=a+b');
    expect(isFiltered({ kind: '', principal: ' ', target: '' })).toBe(false);
    expect(isFiltered({ kind: '', principal: 'x', target: '' })).toBe(true);
  });
});
