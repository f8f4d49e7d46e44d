import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../config';
import { createTempDataDir } from '../db/test-database';
import type { PolicyRequest } from '../executor/ports';
import { readPolicyFile, writePolicyFile } from './policy-file';
import { type ConfigRules, createPolicyStore, isPolicyRulesError, type PolicyStoreOptions } from './policy-store';
import { createPolicyTestRegistry } from './testing/policy-tools';

const temp = createTempDataDir('toolscope-policy-');
afterAll(() => temp.remove());
let count = 0;

function options(overrides: Partial<PolicyStoreOptions> = {}): PolicyStoreOptions {
  const dir = path.join(temp.dir, `case-${++count}`);
  fs.mkdirSync(dir);
  return {
    configRules: { allow: [], ask: [], deny: [] },
    policies: {},
    configFile: '/srv/toolscope.config.json',
    dataFile: path.join(dir, 'policy.json'),
    lookup: createPolicyTestRegistry().get,
    ...overrides,
  };
}

const shell = (command: string, sessionId: string | null = null): PolicyRequest => ({
  tool: 'run_shell',
  input: { command: command.split(' ') },
  sideEffect: 'exec',
  actor: 'api',
  sessionId,
});

const configRules: ConfigRules = {
  allow: [{ rule: 'run_shell(git status)', session: null }],
  ask: [],
  deny: [{ rule: 'write_file(secrets/**)', session: null }],
};

describe('createPolicyStore', () => {
  it('lists the config rules with stable ids and their source, and resolves with them', () => {
    const store = createPolicyStore(options({ configRules }));
    expect(store.rules()).toEqual([
      { id: 'config-allow-0', list: 'allow', rule: 'run_shell(git status)', session: null, source: 'config' },
      { id: 'config-deny-0', list: 'deny', rule: 'write_file(secrets/**)', session: null, source: 'config' },
    ]);
    expect(store.resolve(shell('git status'))).toEqual({
      policy: 'allow',
      rule: 'allow run_shell(git status)',
      source: '/srv/toolscope.config.json',
    });
    expect(store.toolPolicy('run_shell', 'exec')).toEqual({ policy: 'ask', rule: 'default for exec: ask' });
  });

  it('adds, replaces and removes data rules, written to policy.json and read back after a restart', () => {
    const opts = options({ configRules });
    const store = createPolicyStore(opts);
    const added = store.add('allow', 'run_shell(npm run *)', 's-1');
    expect(added).toMatchObject({ list: 'allow', rule: 'run_shell(npm run *)', session: 's-1', source: 'data' });
    expect(added.id).toMatch(/^r-[0-9a-f]{12}$/);
    expect(store.resolve(shell('npm run build', 's-1')).rule).toBe('allow run_shell(npm run *) [session s-1]');
    expect(readPolicyFile(opts.dataFile)).toEqual([
      { id: added.id, list: 'allow', rule: 'run_shell(npm run *)', session: 's-1' },
    ]);

    // A restart reads the same rules, with the same ids.
    const again = createPolicyStore(opts);
    expect(again.rules()).toEqual(store.rules());

    // Replacing keeps the id of a rule sent again unchanged and gives new rules new ids.
    const replaced = again.replace([
      { list: 'deny', rule: 'run_shell(npm publish *)', session: null },
      { list: 'allow', rule: 'run_shell(npm run *)', session: 's-1' },
    ]);
    const data = replaced.filter((rule) => rule.source === 'data');
    expect(data.map((rule) => rule.rule)).toEqual(['run_shell(npm publish *)', 'run_shell(npm run *)']);
    expect(data[1]?.id).toBe(added.id);
    expect(data[0]?.id).not.toBe(added.id);
    expect(again.resolve(shell('npm publish --tag x')).policy).toBe('deny');

    expect(again.remove('config-allow-0')).toBe('config');
    expect(again.remove('r-unknown')).toBe('not_found');
    expect(again.remove(added.id)).toBe('removed');
    expect(again.resolve(shell('npm run build', 's-1')).rule).toBe('default for exec: ask');
    expect(
      createPolicyStore(opts)
        .rules()
        .filter((rule) => rule.source === 'data'),
    ).toHaveLength(1);
  });

  it('refuses bad rules as a whole, one issue per rule, and keeps what it had', () => {
    const opts = options();
    const store = createPolicyStore(opts);
    store.add('allow', 'note');
    let caught: unknown;
    try {
      store.replace([
        { list: 'allow', rule: 'read_file', session: null },
        { list: 'allow', rule: 'nope', session: null },
        { list: 'deny', rule: 'note(x)', session: null },
      ]);
    } catch (error) {
      caught = error;
    }
    expect(isPolicyRulesError(caught)).toBe(true);
    if (isPolicyRulesError(caught)) {
      expect(caught.issues).toEqual([
        { path: 'rules[1].rule', message: 'The rule names the tool "nope", which is not registered.' },
        { path: 'rules[2].rule', message: expect.stringMatching(/^note takes no specifier/) },
      ]);
    }
    expect(() => store.add('deny', 'write_file()')).toThrow(/empty specifier/);
    expect(store.rules().map((rule) => rule.rule)).toEqual(['note']);
    expect(readPolicyFile(opts.dataFile).map((rule) => rule.rule)).toEqual(['note']);
  });

  it('stops the start on a bad config rule, naming its path, and on a bad policy.json', () => {
    const bad: ConfigRules = {
      allow: [
        { rule: 'read_file', session: null },
        { rule: 'nope', session: null },
      ],
      ask: [],
      deny: [{ rule: 'note(x)', session: null }],
    };
    expect(() => createPolicyStore(options({ configRules: bad }))).toThrow(ConfigError);
    expect(() => createPolicyStore(options({ configRules: bad }))).toThrow(
      /Invalid configuration in \/srv\/toolscope.config.json:\n {2}- permissions.allow.1: The rule names the tool "nope", which is not registered.\n {2}- permissions.deny.0: note takes no specifier/,
    );

    const opts = options();
    writePolicyFile(opts.dataFile, [{ id: 'r-1', list: 'allow', rule: 'gone_tool', session: null }]);
    expect(() => createPolicyStore(opts)).toThrow(/Invalid rules in .*policy.json:\n {2}- rules.0: .*"gone_tool"/);
    fs.writeFileSync(opts.dataFile, '{"version": 1, "rules": [{"id": "r-1"}]}');
    expect(() => createPolicyStore(opts)).toThrow(/is not a Toolscope policy file:\n {2}- rules.0.list/);
    fs.writeFileSync(opts.dataFile, '{');
    expect(() => createPolicyStore(opts)).toThrow(/is not valid JSON/);
  });

  it('compiles a draft beside the config rules without changing the rules in force', () => {
    const store = createPolicyStore(options({ configRules }));
    store.add('allow', 'run_shell(ls)');
    const draft = store.draft([{ list: 'deny', rule: 'run_shell(git *)', session: null }]);
    expect(draft.decide(shell('git status')).policy).toBe('deny');
    expect(draft.decide(shell('ls')).policy).toBe('ask');
    expect(store.resolve(shell('ls')).policy).toBe('allow');
    expect(() => store.draft([{ list: 'deny', rule: 'nope', session: null }])).toThrow(/not registered/);
  });
});

describe('writePolicyFile', () => {
  it('replaces the file atomically through a temporary file, leaving none behind', () => {
    const opts = options();
    const dir = path.dirname(opts.dataFile);
    writePolicyFile(opts.dataFile, [{ id: 'r-a', list: 'allow', rule: 'note', session: null }]);
    const inode = fs.statSync(opts.dataFile).ino;
    writePolicyFile(opts.dataFile, [{ id: 'r-b', list: 'deny', rule: 'note', session: null }]);
    // A rename, not a rewrite in place: a reader holding the old file never sees half of the new one.
    expect(fs.statSync(opts.dataFile).ino).not.toBe(inode);
    expect(fs.readdirSync(dir)).toEqual(['policy.json']);
    expect(JSON.parse(fs.readFileSync(opts.dataFile, 'utf8'))).toEqual({
      version: 1,
      rules: [{ id: 'r-b', list: 'deny', rule: 'note', session: null }],
    });
  });

  it('reads a missing file as no rules', () => {
    expect(readPolicyFile(path.join(temp.dir, 'missing', 'policy.json'))).toEqual([]);
  });
});
