import { describe, expect, it } from 'vitest';
import type { PolicyRequest } from '../executor/ports';
import type { AnyTool, PermissionSubject, Policy } from '../executor/types';
import { compileRule, compileRuleSet, type RuleInput } from './rule-set';
import { createPolicyTestRegistry } from './testing/policy-tools';

const registry = createPolicyTestRegistry();
const lookup = registry.get;

function rules(lists: Partial<Record<'allow' | 'ask' | 'deny', (string | [string, string])[]>>): RuleInput[] {
  return (['allow', 'ask', 'deny'] as const).flatMap((list) =>
    (lists[list] ?? []).map((entry) =>
      typeof entry === 'string' ? { list, rule: entry, session: null } : { list, rule: entry[0], session: entry[1] },
    ),
  );
}

const shell = (command: string, sessionId: string | null = null): PolicyRequest => ({
  tool: 'run_shell',
  input: { command: command.split(' ') },
  sideEffect: 'exec',
  actor: 'api',
  sessionId,
});
const write = (path: string): PolicyRequest => ({
  tool: 'write_file',
  input: { path, content: 'x' },
  sideEffect: 'write',
  actor: 'api',
  sessionId: null,
});

describe('compileRuleSet', () => {
  it('decides deny before ask before allow, whatever the order in the file', () => {
    const set = compileRuleSet(
      rules({ allow: ['run_shell(git *)'], ask: ['run_shell(git push *)'], deny: ['run_shell(git push --force *)'] }),
      {},
      lookup,
    );
    expect(set.decide(shell('git status'))).toEqual({ policy: 'allow', rule: 'allow run_shell(git *)' });
    expect(set.decide(shell('git push origin main'))).toEqual({ policy: 'ask', rule: 'ask run_shell(git push *)' });
    expect(set.decide(shell('git push --force origin main'))).toEqual({
      policy: 'deny',
      rule: 'deny run_shell(git push --force *)',
    });
  });

  it('takes the first matching rule of a list, and falls back to the side-effect default', () => {
    const set = compileRuleSet(rules({ allow: ['write_file(notes/**)', 'write_file(**/*.md)'] }), {}, lookup);
    expect(set.decide(write('notes/a.md')).rule).toBe('allow write_file(notes/**)');
    expect(set.decide(write('docs/a.md')).rule).toBe('allow write_file(**/*.md)');
    expect(set.decide(write('src/a.ts'))).toEqual({ policy: 'ask', rule: 'default for write: ask' });
    expect(set.decide({ ...write('x'), tool: 'read_file', sideEffect: 'read' })).toEqual({
      policy: 'allow',
      rule: 'default for read: allow',
    });
  });

  it('cannot be dodged by a path spelled differently', () => {
    const set = compileRuleSet(rules({ allow: ['write_file'], deny: ['write_file(secrets/**)'] }), {}, lookup);
    for (const path of ['secrets/key', './secrets/key', 'notes/../secrets/key', 'secrets//key']) {
      expect(set.decide(write(path)).policy).toBe('deny');
    }
    expect(set.decide(write('notes/ok')).policy).toBe('allow');
  });

  it('applies a session-limited rule only to that session, and says so', () => {
    const set = compileRuleSet(rules({ allow: [['run_shell(npm run *)', 's-1']] }), {}, lookup);
    expect(set.decide(shell('npm run build', 's-1'))).toEqual({
      policy: 'allow',
      rule: 'allow run_shell(npm run *) [session s-1]',
    });
    expect(set.decide(shell('npm run build', 's-2')).rule).toBe('default for exec: ask');
    expect(set.decide(shell('npm run build', null)).rule).toBe('default for exec: ask');
  });

  it('matches HTTP rules on method and URL', () => {
    const set = compileRuleSet(
      rules({ allow: ['http_request(GET https://api.example.com/*)'], deny: ['http_request(DELETE *)'] }),
      {},
      lookup,
    );
    const http = (method: string, url: string): PolicyRequest => ({
      tool: 'http_request',
      input: { method, url },
      sideEffect: method === 'GET' ? 'read' : 'write',
      actor: 'api',
      sessionId: null,
    });
    expect(set.decide(http('GET', 'https://api.example.com/v1')).policy).toBe('allow');
    expect(set.decide(http('POST', 'https://api.example.com/v1')).rule).toBe('default for write: ask');
    expect(set.decide(http('DELETE', 'https://api.example.com/v1')).policy).toBe('deny');
  });

  it('keeps the policies map working, as tool-wide rules below every explicit rule', () => {
    const policies: Record<string, Policy> = { run_shell: 'deny', note: 'allow' };
    const set = compileRuleSet(rules({ allow: ['run_shell(git status)'] }), policies, lookup);
    expect(set.decide(shell('git status')).rule).toBe('allow run_shell(git status)');
    expect(set.decide(shell('git push'))).toEqual({ policy: 'deny', rule: 'policies.run_shell = deny' });
    expect(
      set.decide({ tool: 'note', input: { text: 'a' }, sideEffect: 'write', actor: 'api', sessionId: null }),
    ).toEqual({ policy: 'allow', rule: 'policies.note = allow' });
  });

  it('answers a tool-wide policy from tool-wide rules, policies and the default', () => {
    const set = compileRuleSet(
      rules({ allow: ['run_shell(git status)', ['note', 's-1']], deny: ['http_request'] }),
      { read_file: 'ask' },
      lookup,
    );
    expect(set.toolWide('run_shell', 'exec').policy).toBe('ask');
    expect(set.toolWide('note', 'write').policy).toBe('ask');
    expect(set.toolWide('http_request', 'write')).toEqual({ policy: 'deny', rule: 'deny http_request' });
    expect(set.toolWide('read_file', 'read')).toEqual({ policy: 'ask', rule: 'policies.read_file = ask' });
    expect(set.toolWide('calculator', 'none').policy).toBe('allow');
  });

  it('computes a call subject at most once, and only when a rule needs it', () => {
    const tool = lookup('run_shell') as AnyTool;
    const subject = tool.permissionSubject as PermissionSubject;
    let computed = 0;
    const counting = {
      ...tool,
      permissionSubject: {
        ...subject,
        of(input: unknown) {
          computed++;
          return subject.of(input);
        },
      },
    };
    const countingLookup = (name: string) => (name === 'run_shell' ? counting : lookup(name));
    const set = compileRuleSet(rules({ allow: ['run_shell(a)', 'run_shell(b)', 'run_shell(c)'] }), {}, countingLookup);
    expect(set.decide(shell('c')).rule).toBe('allow run_shell(c)');
    expect(computed).toBe(1);
    const wide = compileRuleSet(rules({ allow: ['run_shell'] }), {}, countingLookup);
    computed = 0;
    expect(wide.decide(shell('c')).rule).toBe('allow run_shell');
    expect(computed).toBe(0);
  });

  it('matches a command rule on the argv, not on its text joined by spaces', () => {
    const set = compileRuleSet(rules({ allow: ['run_shell(git a b)'], deny: ['run_shell(git * push *)'] }), {}, lookup);
    const argv = (command: string[]): PolicyRequest => ({ ...shell(''), input: { command } });
    expect(set.decide(argv(['git', 'a', 'b'])).rule).toBe('allow run_shell(git a b)');
    expect(set.decide(argv(['git', 'a b'])).rule).toBe('default for exec: ask');
    expect(set.decide(argv(['git', '-C', 'dir', 'push'])).rule).toBe('deny run_shell(git * push *)');
    expect(set.decide(argv(['git', 'commit', '-m', 'push it'])).rule).toBe('default for exec: ask');
  });
});

describe('compileRule', () => {
  const check = (rule: string) => {
    const compiled = compileRule({ list: 'allow', rule, session: null }, lookup);
    return compiled.ok ? 'ok' : compiled.message;
  };

  it('checks the tool and the specifier against the tools', () => {
    expect(check('write_file(notes/**)')).toBe('ok');
    expect(check('note')).toBe('ok');
    expect(check('nope(x)')).toBe('The rule names the tool "nope", which is not registered.');
    expect(check('note(anything)')).toBe(
      'note takes no specifier (it has no permission subject); write "note" for every call of it.',
    );
    expect(check('write_file(/etc/**)')).toMatch(
      /^Bad specifier for write_file \(a path glob .*\): "\/etc\/\*\*" is absolute/,
    );
    expect(check('http_request(example.com)')).toMatch(/must start with http/);
    expect(check('write_file(')).toMatch(/no closing/);
  });
});
