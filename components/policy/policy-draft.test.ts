import { describe, expect, it } from 'vitest';
import { countsBefore, type DraftRule, diffDraft, draftFrom, errorsByRule, rulesBody } from './policy-draft';

const rule = (key: string, text: string, list: DraftRule['list'] = 'allow', session: string | null = null) => ({
  key,
  id: key,
  list,
  rule: text,
  session,
});

describe('policy draft', () => {
  it('starts from the data rules only', () => {
    const draft = draftFrom({
      config_file: '/x/toolscope.config.json',
      rules: [
        { id: 'config-allow-0', list: 'allow', rule: 'read_file', session: null, source: 'config' },
        { id: 'r-1', list: 'deny', rule: 'write_file(.env)', session: 's', source: 'data' },
      ],
    });
    expect(draft).toEqual([{ key: 'r-1', id: 'r-1', list: 'deny', rule: 'write_file(.env)', session: 's' }]);
    expect(rulesBody(draft)).toEqual({ rules: [{ list: 'deny', rule: 'write_file(.env)', session: 's' }] });
  });

  it('finds added and removed rules, matching them as a multiset', () => {
    const server = [rule('a', 'calculator'), rule('b', 'calculator'), rule('c', 'run_shell(ls)', 'deny')];
    const draft = [rule('a', 'calculator'), rule('n', 'calculator'), rule('m', 'run_shell(ls)', 'ask')];
    const diff = diffDraft(server, draft);
    // `n` takes the place of the second `calculator`: the same rule, not a new one
    expect([...diff.added]).toEqual(['m']);
    expect(diff.removed.map((r) => r.key)).toEqual(['c']);
    expect(diff.changed).toBe(true);
  });

  it('tells a session-limited rule from the same rule for every session', () => {
    const diff = diffDraft([rule('a', 'calculator')], [rule('n', 'calculator', 'allow', 'sess-1')]);
    expect([...diff.added]).toEqual(['n']);
    expect(diff.removed).toHaveLength(1);
  });

  it('sees no change in the same rules, and a change in their order', () => {
    const server = [rule('a', 'calculator'), rule('b', 'read_file')];
    expect(diffDraft(server, [rule('x', ' calculator '), rule('y', 'read_file')]).changed).toBe(false);
    const swapped = diffDraft(server, [server[1] as DraftRule, server[0] as DraftRule]);
    expect(swapped.changed).toBe(true);
    expect(swapped.added.size).toBe(0);
    expect(swapped.removed).toHaveLength(0);
  });

  it('maps the API field errors to the rules sent and their fields', () => {
    const errors = errorsByRule([
      { path: 'rules[2].rule', message: 'Bad specifier.' },
      { path: 'rules[0].session', message: 'Too small.' },
      { path: 'rules[2].rule', message: 'Again.' },
      { path: 'body', message: 'Not JSON.' },
    ]);
    expect(errors.get(2)).toEqual({ rule: 'Bad specifier. Again.' });
    expect(errors.get(0)).toEqual({ session: 'Too small.' });
    expect(errors.get(-1)).toEqual({ other: 'Not JSON.' });
  });

  it('counts the decisions before the draft from the calls it changes', () => {
    const before = countsBefore({
      counts: { allow: 5, ask: 1, deny: 3 },
      changed: [
        {
          trace_id: 't1',
          tool: 'run_shell',
          arguments: {},
          before: { policy: 'allow', rule: 'x' },
          after: { policy: 'deny', rule: 'y' },
        },
        {
          trace_id: 't2',
          tool: 'run_shell',
          arguments: {},
          before: { policy: 'allow', rule: 'x' },
          after: { policy: 'deny', rule: 'y' },
        },
        {
          trace_id: 't3',
          tool: 'write_file',
          arguments: {},
          before: { policy: 'ask', rule: 'x' },
          after: { policy: 'allow', rule: 'y' },
        },
      ],
    });
    expect(before).toEqual({ allow: 6, ask: 2, deny: 1 });
  });
});
