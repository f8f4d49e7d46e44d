import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../db/open-database';
import { decidePolicy, type PolicyRequest } from '../executor/ports';
import type { Policy } from '../executor/types';
import { compileRuleSet, type RuleInput, type RuleSet } from '../policy/rule-set';
import { createPolicyTestRegistry } from '../policy/testing/policy-tools';
import { createScopedPolicy } from './key-scope';
import { createKeyStore, type KeyPermissions, type KeyStore } from './key-store';

/**
 * Scoped keys' policy (`createScopedPolicy`), with real tools and keys in a migrated in-memory
 * database: a key's `tools` list (with `*`) denies every other tool; its rules are weighed with
 * the global ones as one list — deny anywhere wins, then ask, then allow, then the global fallback;
 * unscoped principals, and calls without one, get the global decision unchanged; a key whose rules
 * no longer compile denies every call.
 */

const registry = createPolicyTestRegistry();
const lookup = registry.get;

function ruleSet(
  lists: Partial<Record<'allow' | 'ask' | 'deny', string[]>>,
  policies: Record<string, Policy> = {},
): RuleSet {
  const rules: RuleInput[] = (['allow', 'ask', 'deny'] as const).flatMap((list) =>
    (lists[list] ?? []).map((rule) => ({ list, rule, session: null })),
  );
  return compileRuleSet(rules, policies, lookup);
}

const permissions = (lists: Partial<KeyPermissions>): KeyPermissions => ({ allow: [], ask: [], deny: [], ...lists });

let db: SqliteDatabase;
let keys: KeyStore;
let global: RuleSet;

/** The scoped policy over the store's keys and the current global rules, its answers read as the executor does. */
function scoped() {
  const policy = createScopedPolicy({ global: () => global, keyOf: (id) => keys.byId(id), lookup });
  return {
    resolve: (request: PolicyRequest) => decidePolicy(policy.resolve, request),
    mayCall: policy.mayCall,
  };
}

/** A call by the key `id` (or by nobody). */
function call(id: string | null, tool: string, input: unknown, sideEffect: PolicyRequest['sideEffect']): PolicyRequest {
  return {
    tool,
    input,
    sideEffect,
    actor: 'api',
    sessionId: null,
    principal: id === null ? null : { id, name: 'someone', role: 'agent' },
  };
}
const shell = (id: string | null, command: string) => call(id, 'run_shell', { command: command.split(' ') }, 'exec');
const write = (id: string | null, path: string) => call(id, 'write_file', { path, content: 'x' }, 'write');
const read = (id: string | null, path: string) => call(id, 'read_file', { path }, 'read');

beforeEach(() => {
  db = openDatabase(':memory:');
  keys = createKeyStore(db);
  global = ruleSet({});
});

afterEach(() => db.close());

describe('createScopedPolicy', () => {
  it('gives the global decision unchanged to calls without a principal, unscoped keys and unknown ids', () => {
    global = ruleSet({ allow: ['run_shell(git *)'], deny: ['write_file(secrets/**)'] }, { note: 'deny' });
    const plain = keys.create({ name: 'alice', role: 'admin' }).key;
    const policy = scoped();
    const requests = (id: string | null) => [
      shell(id, 'git status'),
      shell(id, 'rm -rf x'),
      write(id, 'secrets/a'),
      write(id, 'notes/a'),
      read(id, 'a'),
      call(id, 'note', { text: 'x' }, 'write'),
    ];
    for (const id of [null, plain.id, 'token', 'local', 'key_unknown']) {
      expect(requests(id).map(policy.resolve), String(id)).toEqual(requests(null).map((r) => global.decide(r)));
      expect(policy.mayCall(id ?? 'nobody', 'run_shell')).toBe(true);
    }
  });

  describe("a key's tools list", () => {
    it('denies every tool outside it, `*` standing for any text', () => {
      const { key } = keys.create({ name: 'bot', role: 'agent', tools: ['read_file', 'fs__*'] });
      const policy = scoped();
      expect(policy.resolve(read(key.id, 'notes/a'))).toEqual({ policy: 'allow', rule: 'default for read: allow' });
      expect(policy.resolve(write(key.id, 'notes/a'))).toEqual({
        policy: 'deny',
        rule: 'key bot may call only read_file, fs__*',
      });
      expect(policy.resolve(shell(key.id, 'git status')).policy).toBe('deny');
      // Another key, and calls without a key, are not limited by it.
      expect(policy.resolve(write(null, 'notes/a')).policy).toBe('ask');

      expect(policy.mayCall(key.id, 'read_file')).toBe(true);
      expect(policy.mayCall(key.id, 'fs__read')).toBe(true);
      expect(policy.mayCall(key.id, 'fs__')).toBe(true);
      expect(policy.mayCall(key.id, 'fs_read')).toBe(false);
      expect(policy.mayCall(key.id, 'read_file_2')).toBe(false);
      expect(policy.mayCall(key.id, 'write_file')).toBe(false);
    });

    it('with no tools in it denies every call', () => {
      const { key } = keys.create({ name: 'bot', role: 'agent', tools: [] });
      const policy = scoped();
      expect(policy.resolve(read(key.id, 'a')).policy).toBe('deny');
      expect(policy.mayCall(key.id, 'read_file')).toBe(false);
    });

    it('does not let a listed tool past a global deny', () => {
      global = ruleSet({ deny: ['read_file(secrets/**)'] });
      const { key } = keys.create({ name: 'bot', role: 'agent', tools: ['read_file'] });
      expect(scoped().resolve(read(key.id, 'secrets/key'))).toEqual({
        policy: 'deny',
        rule: 'deny read_file(secrets/**)',
      });
    });
  });

  describe("a key's rules, weighed with the global ones", () => {
    it('deny in the key beats allow in the global rules', () => {
      global = ruleSet({ allow: ['run_shell(git *)'] });
      const { key } = keys.create({
        name: 'bot',
        role: 'agent',
        permissions: permissions({ deny: ['run_shell(git push *)'] }),
      });
      const policy = scoped();
      expect(policy.resolve(shell(key.id, 'git push origin main'))).toEqual({
        policy: 'deny',
        rule: 'deny run_shell(git push *) (key bot)',
      });
      expect(policy.resolve(shell(key.id, 'git status'))).toEqual({ policy: 'allow', rule: 'allow run_shell(git *)' });
      // Calls of others still follow the global rules alone.
      expect(policy.resolve(shell(null, 'git push origin main')).policy).toBe('allow');
    });

    it('deny in the global rules beats allow in the key', () => {
      global = ruleSet({ deny: ['write_file(secrets/**)'] });
      const { key } = keys.create({ name: 'bot', role: 'agent', permissions: permissions({ allow: ['write_file'] }) });
      const policy = scoped();
      expect(policy.resolve(write(key.id, 'secrets/a'))).toEqual({
        policy: 'deny',
        rule: 'deny write_file(secrets/**)',
      });
      // Where no global rule speaks, the key's allow lets through what the default would ask about.
      expect(policy.resolve(write(key.id, 'notes/a'))).toEqual({ policy: 'allow', rule: 'allow write_file (key bot)' });
      expect(policy.resolve(write(null, 'notes/a'))).toEqual({ policy: 'ask', rule: 'default for write: ask' });
    });

    it('ask in either beats allow in the other', () => {
      global = ruleSet({ ask: ['run_shell(npm publish *)'], allow: ['write_file'] });
      const { key } = keys.create({
        name: 'bot',
        role: 'agent',
        permissions: permissions({ allow: ['run_shell(npm *)'], ask: ['write_file(notes/**)'] }),
      });
      const policy = scoped();
      expect(policy.resolve(shell(key.id, 'npm publish --tag x'))).toEqual({
        policy: 'ask',
        rule: 'ask run_shell(npm publish *)',
      });
      expect(policy.resolve(shell(key.id, 'npm test'))).toEqual({
        policy: 'allow',
        rule: 'allow run_shell(npm *) (key bot)',
      });
      expect(policy.resolve(write(key.id, 'notes/a'))).toEqual({
        policy: 'ask',
        rule: 'ask write_file(notes/**) (key bot)',
      });
      expect(policy.resolve(write(key.id, 'src/a'))).toEqual({ policy: 'allow', rule: 'allow write_file' });
    });

    it('deny in both is a deny', () => {
      global = ruleSet({ deny: ['read_file(secrets/**)'] });
      const { key } = keys.create({ name: 'bot', role: 'agent', permissions: permissions({ deny: ['read_file'] }) });
      const policy = scoped();
      expect(policy.resolve(read(key.id, 'secrets/a')).policy).toBe('deny');
      expect(policy.resolve(read(key.id, 'notes/a'))).toEqual({ policy: 'deny', rule: 'deny read_file (key bot)' });
    });

    it('falls back to the global fallback where no rule matches: the policies map, then the default', () => {
      global = ruleSet({}, { run_shell: 'allow' });
      const { key } = keys.create({
        name: 'bot',
        role: 'agent',
        permissions: permissions({ deny: ['run_shell(rm *)'] }),
      });
      const policy = scoped();
      expect(policy.resolve(shell(key.id, 'ls'))).toEqual({ policy: 'allow', rule: 'policies.run_shell = allow' });
      expect(policy.resolve(shell(key.id, 'rm -rf x')).policy).toBe('deny');
      expect(policy.resolve(write(key.id, 'a'))).toEqual({ policy: 'ask', rule: 'default for write: ask' });
    });

    it('lets a key rule decide before the policies map, which stands in for the defaults', () => {
      // As documented ("then the global fallback"): `policies.<tool>` is a tool-wide fallback,
      // not a rule, so a key's allow goes before even `policies.<tool> = deny`.
      global = ruleSet({}, { write_file: 'deny' });
      const { key } = keys.create({ name: 'bot', role: 'agent', permissions: permissions({ allow: ['write_file'] }) });
      const policy = scoped();
      expect(policy.resolve(write(key.id, 'a'))).toEqual({ policy: 'allow', rule: 'allow write_file (key bot)' });
      expect(policy.resolve(write(null, 'a'))).toEqual({ policy: 'deny', rule: 'policies.write_file = deny' });
    });

    it('reads the global rules afresh for each call', () => {
      const { key } = keys.create({ name: 'bot', role: 'agent', permissions: permissions({ allow: ['write_file'] }) });
      const policy = scoped();
      expect(policy.resolve(write(key.id, 'a')).policy).toBe('allow');
      global = ruleSet({ deny: ['write_file'] });
      expect(policy.resolve(write(key.id, 'a'))).toEqual({ policy: 'deny', rule: 'deny write_file' });
    });

    it('applies both the tools list and the rules', () => {
      const { key } = keys.create({
        name: 'bot',
        role: 'agent',
        tools: ['read_file'],
        permissions: permissions({ deny: ['read_file(secrets/**)'], allow: ['write_file'] }),
      });
      const policy = scoped();
      expect(policy.resolve(read(key.id, 'notes/a')).policy).toBe('allow');
      expect(policy.resolve(read(key.id, 'secrets/a')).policy).toBe('deny');
      // Allowed by its rules, but not in its list.
      expect(policy.resolve(write(key.id, 'a'))).toEqual({ policy: 'deny', rule: 'key bot may call only read_file' });
    });
  });

  describe('a key whose rules no longer compile', () => {
    it('denies every call, naming why', () => {
      const { key } = keys.create({
        name: 'bot',
        role: 'agent',
        permissions: permissions({ allow: ['read_file', 'gone_tool'] }),
      });
      const policy = scoped();
      const decision = policy.resolve(read(key.id, 'a'));
      expect(decision.policy).toBe('deny');
      expect(decision.rule).toMatch(/^key bot: its rules no longer hold \(.*gone_tool.*\)$/);
      expect(policy.resolve(shell(key.id, 'ls')).policy).toBe('deny');
      expect(policy.mayCall(key.id, 'read_file')).toBe(false);
      // Other keys are not affected.
      const other = keys.create({ name: 'other', role: 'agent', permissions: permissions({ allow: ['read_file'] }) });
      expect(policy.resolve(read(other.key.id, 'a')).policy).toBe('allow');
    });

    it('denies every call for a specifier its tool does not take', () => {
      const { key } = keys.create({ name: 'bot', role: 'agent', permissions: permissions({ allow: ['note(x)'] }) });
      expect(scoped().resolve(read(key.id, 'a')).policy).toBe('deny');
    });
  });
});
