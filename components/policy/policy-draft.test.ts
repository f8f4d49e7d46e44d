import { describe, expect, it } from 'vitest';
import {
  applyEdits,
  countsBefore,
  type DraftEdits,
  draftFrom,
  errorsByRule,
  NO_EDITS,
  removeRule,
  restoreRule,
  rulesBody,
} from './policy-draft';

const rule = (key: string, text: string, list: 'allow' | 'ask' | 'deny' = 'allow', session: string | null = null) => ({
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

  it('applies the edits on top of the server rules, whatever changed there meanwhile', () => {
    const server = [rule('a', 'calculator'), rule('b', 'run_shell(ls)', 'deny')];
    let edits: DraftEdits = NO_EDITS;
    expect(applyEdits(server, edits)).toEqual({ rules: server, removed: [], dirty: false });
    edits = removeRule(edits, 'b');
    edits = { ...edits, added: [rule('n1', 'read_file', 'ask', 'sess-1')] };
    const draft = applyEdits(server, edits);
    expect(draft.rules.map((r) => r.key)).toEqual(['a', 'n1']);
    expect(draft.removed.map((r) => r.key)).toEqual(['b']);
    expect(draft.dirty).toBe(true);
    expect(rulesBody(draft.rules).rules).toEqual([
      { list: 'allow', rule: 'calculator', session: null },
      { list: 'ask', rule: 'read_file', session: 'sess-1' },
    ]);

    // "Always allow" added a rule and someone removed `b` elsewhere: the draft keeps the new rule
    // and its own edit, and `b` is no longer an edit.
    const moved = [rule('a', 'calculator'), rule('c', 'write_file(notes/**)')];
    const rebased = applyEdits(moved, edits);
    expect(rebased.rules.map((r) => r.key)).toEqual(['a', 'c', 'n1']);
    expect(rebased.removed).toEqual([]);
  });

  it('removes an added rule by dropping it, a server rule by marking it, and restores it', () => {
    const server = [rule('a', 'calculator')];
    let edits: DraftEdits = { added: [rule('n1', 'read_file')], removed: new Set() };
    edits = removeRule(edits, 'n1');
    expect(edits.added).toEqual([]);
    expect(applyEdits(server, edits).dirty).toBe(false);
    edits = removeRule(edits, 'a');
    expect(applyEdits(server, edits).rules).toEqual([]);
    edits = restoreRule(edits, 'a');
    expect(applyEdits(server, edits)).toEqual({ rules: server, removed: [], dirty: false });
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
