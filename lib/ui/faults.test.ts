import { describe, expect, it } from 'vitest';
import { type FaultRuleJson, fieldErrorsOf, ruleState, withoutRule, withRule } from './faults';

const NOW = Date.parse('2026-11-30T05:00:00Z');

function rule(overrides: Partial<FaultRuleJson> = {}): FaultRuleJson {
  return {
    id: 'flt_a',
    name: 'a',
    enabled: true,
    tool: 'calculator',
    session_id: null,
    kind: 'latency',
    params: { ms: 100 },
    probability: 1,
    seed: 1,
    max_hits: null,
    hits: 0,
    expires_at: null,
    created_at: '2026-11-30T04:00:00.000Z',
    updated_at: '2026-11-30T04:00:00.000Z',
    active: true,
    ...overrides,
  };
}

describe('fault rules in the browser', () => {
  it("says why a rule is not active, or that it is (the server's `active` decides)", () => {
    expect(ruleState(rule(), NOW)).toBe('active');
    expect(ruleState(rule({ active: false, enabled: false }), NOW)).toBe('disabled');
    expect(ruleState(rule({ active: false, expires_at: '2026-11-30T04:59:59.000Z' }), NOW)).toBe('expired');
    expect(ruleState(rule({ active: false, max_hits: 2, hits: 2 }), NOW)).toBe('used up');
    // The server knows best: a rule it calls inactive for a reason the page's clock cannot see.
    expect(ruleState(rule({ active: false, expires_at: '2026-11-30T05:00:01.000Z' }), NOW)).toBe('inactive');
  });

  it("replaces, adds and removes a rule in the list from the server's answer, recounting the active ones", () => {
    const list = { faults: [rule({ id: 'flt_b' }), rule({ id: 'flt_a', active: false, enabled: false })], active: 1 };
    const enabled = withRule(list, rule({ id: 'flt_a' }));
    expect(enabled.active).toBe(2);
    expect(enabled.faults.map((r) => r.id)).toEqual(['flt_b', 'flt_a']);
    const added = withRule(list, rule({ id: 'flt_c' }));
    expect(added.faults.map((r) => r.id)).toEqual(['flt_c', 'flt_b', 'flt_a']);
    expect(added.active).toBe(2);
    expect(withoutRule(list, 'flt_b')).toEqual({ faults: [list.faults[1]], active: 0 });
  });

  it("reads the field errors of a 400's details, whatever their shape", () => {
    expect(
      fieldErrorsOf({
        errors: [
          { path: 'params.n', message: 'required' },
          { path: ['params', 'ms'], message: 'x' },
        ],
      }),
    ).toEqual([
      { path: 'params.n', message: 'required' },
      { path: 'params.ms', message: 'x' },
    ]);
    expect(fieldErrorsOf(null)).toEqual([]);
    expect(fieldErrorsOf({ errors: 'nope' })).toEqual([]);
    expect(fieldErrorsOf({ errors: [null, 3, { message: 'no path' }] })).toEqual([{ path: '', message: 'no path' }]);
  });
});
