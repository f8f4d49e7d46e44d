import { describe, expect, it } from 'vitest';
import { emptyKeyDraft, keyBody, keyFieldErrors, keyScope, sortKeys, withKey } from './keys-draft';

const key = (id: string, created_at: string) => ({
  id,
  name: id,
  role: 'agent' as const,
  created_at,
  last_used_at: null,
  revoked_at: null,
});

describe('keyBody', () => {
  it('sends name and role alone for an unscoped key', () => {
    expect(keyBody({ ...emptyKeyDraft('viewer'), name: '  alice ' })).toEqual({ name: 'alice', role: 'viewer' });
  });

  it('splits tools on commas and rules on lines, dropping blanks', () => {
    const body = keyBody({
      name: 'ci',
      role: 'agent',
      tools: 'read_file, http_*,, \nwrite_file',
      allow: 'write_file(notes/**)\n\n  read_file  \n',
      ask: '   ',
      deny: 'shell(rm *)',
    });
    expect(body).toEqual({
      name: 'ci',
      role: 'agent',
      tools: ['read_file', 'http_*', 'write_file'],
      permissions: { allow: ['write_file(notes/**)', 'read_file'], deny: ['shell(rm *)'] },
    });
  });
});

describe('keyFieldErrors', () => {
  const sent = { name: 'ci', role: 'agent' as const, permissions: { allow: ['ok', 'bad(('], deny: ['nope'] } };

  it('puts each bad rule at its list, quoting the rule', () => {
    const errors = keyFieldErrors(
      {
        code: 'INVALID_RULES',
        message: 'permissions.allow[1]: unbalanced',
        errors: [
          { path: 'permissions.allow[1]', message: 'unbalanced' },
          { path: 'permissions.deny[0]', message: 'unknown tool "nope"' },
        ],
      },
      sent,
    );
    expect(errors).toEqual({ allow: 'bad((: unbalanced', deny: 'nope: unknown tool "nope"' });
  });

  it("reads INVALID_REQUEST's zod paths, a reserved name's message whole", () => {
    expect(
      keyFieldErrors(
        { code: 'INVALID_REQUEST', message: 'name: too short; role: Invalid option; tools.0: Too small', errors: [] },
        sent,
      ),
    ).toEqual({ name: 'too short', role: 'Invalid option', tools: 'Too small' });
    expect(
      keyFieldErrors(
        {
          code: 'INVALID_REQUEST',
          message: 'name: "local" names another kind of principal here; choose another.',
          errors: [],
        },
        sent,
      ),
    ).toEqual({ name: '"local" names another kind of principal here; choose another.' });
    expect(keyFieldErrors({ code: 'INVALID_REQUEST', message: 'body: Unrecognized key', errors: [] }, sent)).toEqual({
      other: 'body: Unrecognized key',
    });
  });

  it('puts a taken name at the name, anything else under the form', () => {
    expect(keyFieldErrors({ code: 'ALREADY_EXISTS', message: 'taken', errors: [] }, sent)).toEqual({ name: 'taken' });
    expect(keyFieldErrors({ code: 'FORBIDDEN', message: 'no', errors: [] }, sent)).toEqual({ other: 'no' });
  });
});

describe('keys list', () => {
  it('sorts newest first', () => {
    const keys = [key('a', '2025-01-01T00:00:00.000Z'), key('b', '2025-02-01T00:00:00.000Z')];
    expect(sortKeys(keys).map((k) => k.id)).toEqual(['b', 'a']);
  });

  it('replaces a key by the answer, or adds it', () => {
    const a = key('a', '2025-01-01T00:00:00.000Z');
    const revoked = { ...a, revoked_at: '2025-03-01T00:00:00.000Z' };
    expect(withKey([a], revoked)).toEqual([revoked]);
    expect(withKey([a], key('b', '2025-01-02T00:00:00.000Z')).map((k) => k.id)).toEqual(['a', 'b']);
  });

  it('says what a key is limited to, or null', () => {
    expect(keyScope({})).toBeNull();
    expect(keyScope({ tools: ['read_file'] })).toEqual({ tools: ['read_file'], rules: null });
    expect(keyScope({ permissions: { allow: ['x'], ask: [], deny: [] } })).toEqual({
      tools: null,
      rules: { allow: ['x'], ask: [], deny: [] },
    });
  });
});
