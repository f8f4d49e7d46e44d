import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isToolError } from '../executor/errors';
import { createSqliteTraceStore, NOT_KEPT } from './sqlite-trace-store';
import { createTempDataDir, openTestDatabase } from './test-database';
import { makeTrace } from './trace-store-suite';
import { createKeylessVault, createVault, isVaultError, readVaultKeyFile, VAULT_KEY_FILE } from './vault';
import { countSealedRows, openDataFolderVault } from './vault-state';

const temp = createTempDataDir('toolscope-vault-state-');
afterAll(() => temp.remove());

let dirCount = 0;
const freshDir = () => {
  const dir = path.join(temp.dir, `data-${++dirCount}`);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
};

/** A call whose raw arguments differ from their redacted form: its raw arguments are sealed. */
const secretCall = (overrides = {}) =>
  makeTrace({ arguments: { token: '[REDACTED]' }, rawArguments: '{"token":"sk-live-1234567890abcdef"}', ...overrides });

describe('the vault of a data folder at start-up', () => {
  it('without a key and with nothing sealed, makes the key on first use (a new data folder)', () => {
    const dir = freshDir();
    const db = openTestDatabase(dir);
    const state = openDataFolderVault(dir, db);
    expect(state.health()).toEqual({ status: 'ok', sealed_rows: null, message: null });
    // Calls whose arguments are their redacted text seal nothing and count as nothing sealed.
    const store = createSqliteTraceStore({ db, vault: state.vault });
    store.finish(makeTrace());
    store.flush();
    expect(countSealedRows(db)).toBe(0);
    expect(fs.existsSync(path.join(dir, VAULT_KEY_FILE))).toBe(false);
    store.finish(secretCall());
    store.flush();
    expect(countSealedRows(db)).toBe(1);
    expect(readVaultKeyFile(dir).state).toBe('present');
    store.close();
  });

  it('without a key and with sealed rows, makes none: sealing is refused, opening fails, commits go on', async () => {
    const dir = freshDir();
    const sealed = secretCall();
    const before = createSqliteTraceStore({ db: openTestDatabase(dir), vault: createVault({ dir }) });
    before.finish(sealed);
    before.close();
    fs.rmSync(path.join(dir, VAULT_KEY_FILE));
    const db = openTestDatabase(dir);

    const state = openDataFolderVault(dir, db);
    expect(state.health()).toMatchObject({ status: 'missing', sealed_rows: 1 });
    const store = createSqliteTraceStore({ db, vault: state.vault });
    expect(() => store.openSealedArguments(sealed.id)).toThrow(
      expect.objectContaining({ name: 'VaultError', code: 'VAULT_KEY_MISMATCH' }),
    );
    // A call that needs sealing does not begin; one that does not, does.
    const refused = secretCall({ status: 'running', finishedAt: null });
    let thrown: unknown;
    try {
      store.begin(refused);
    } catch (error) {
      thrown = error;
    }
    expect(isToolError(thrown) && thrown.code).toBe('VAULT_KEY_MISSING');
    store.begin(makeTrace({ status: 'running', finishedAt: null }));
    // Its finish (and any write needing a seal) commits, its raw arguments not kept.
    await store.finish({ ...refused, status: 'failed' });
    expect(store.get(refused.id)?.status).toBe('failed');
    expect(() => store.openSealedArguments(refused.id)).toThrow(/not kept/);
    const row = db.prepare('SELECT sealed_arguments FROM tool_calls WHERE id IN (?, ?)').pluck();
    expect(row.get(refused.id, refused.id)).toEqual(NOT_KEPT);
    expect(countSealedRows(db)).toBe(1);
    expect(fs.existsSync(path.join(dir, VAULT_KEY_FILE))).toBe(false);
    store.close();
  });

  it('a pending call ended unopened keeps its sealed arguments', () => {
    const dir = freshDir();
    const db = openTestDatabase(dir);
    const pending = secretCall({ status: 'awaiting_approval', sideEffect: 'write', finishedAt: null, latencyMs: null });
    const store = createSqliteTraceStore({ db, vault: createVault({ dir }) });
    store.begin(pending);
    store.flush();
    const ended = { ...pending, status: 'failed' as const, finishedAt: pending.createdAt + 5, latencyMs: 5 };
    expect(store.finishUnopened({ ...ended, rawArguments: '' })).toBe(true);
    expect(store.get(pending.id)).toMatchObject({ status: 'failed', finishedAt: pending.createdAt + 5 });
    expect(store.openSealedArguments(pending.id)?.rawArguments).toBe(pending.rawArguments);
    // Only a call not finished yet.
    expect(store.finishUnopened({ ...ended, rawArguments: '' })).toBe(false);
    store.close();
  });
});

describe('a keyless vault', () => {
  it('cannot seal or open, with codes a caller can tell apart', () => {
    const vault = createKeylessVault('no key here');
    expect(vault.canSeal()).toBe(false);
    const sealError = (() => {
      try {
        vault.seal('x');
      } catch (error) {
        return error;
      }
    })();
    expect(isVaultError(sealError) && sealError.code).toBe('VAULT_KEY_MISSING');
    expect(() => vault.open(createVault({ key: Buffer.alloc(32, 1) }).seal('x'))).toThrow(
      expect.objectContaining({ code: 'VAULT_KEY_MISMATCH', message: expect.stringContaining('no key here') }),
    );
    expect(isVaultError(new Error('other'))).toBe(false);
  });
});
