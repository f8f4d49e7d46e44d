import path from 'node:path';
import type { Config } from '../config';
import { openDatabase } from '../db/open-database';
import { loadOrCreateVaultKey, readVaultKeyFile, VAULT_KEY_FILE } from '../db/vault';
import { countSealedRows, NEW_KEY_COMMAND } from '../db/vault-state';
import { acquireDataFolderLock, isDataFolderLockedError } from './data-lock';

/** What `npm run vault -- new-key` did: `ok` when it made a key; `message` says what and why. */
export interface NewKeyOutcome {
  ok: boolean;
  message: string;
}

/**
 * Makes a new vault key for the data folder of `config`, only while Toolscope is stopped (it takes
 * the data folder's lock) and only where there is no `vault.key` (it never replaces one: that key
 * is what opens what it sealed). While stored calls hold values sealed with a lost key, it refuses
 * unless `discardSealed`: a new key never opens them, so those calls can no longer be replayed, and
 * any awaiting approval ends `VAULT_KEY_MISMATCH` at the next start.
 * @example newVaultKey(loadConfig(), { discardSealed: true })
 */
export function newVaultKey(config: Config, options: { discardSealed?: boolean } = {}): NewKeyOutcome {
  const keyPath = path.join(config.dataDir, VAULT_KEY_FILE);
  let lock: ReturnType<typeof acquireDataFolderLock>;
  try {
    lock = acquireDataFolderLock(config.dataDir);
  } catch (error) {
    if (!isDataFolderLockedError(error)) throw error;
    return { ok: false, message: `${error.message} A new vault key is made only while Toolscope is stopped.` };
  }
  try {
    const file = readVaultKeyFile(config.dataDir);
    if (file.state !== 'absent') {
      const what = file.state === 'unusable' ? `is unusable (${file.problem})` : 'is in place';
      return {
        ok: false,
        message:
          `${keyPath} ${what}: nothing was changed. This command never replaces a key; move it aside ` +
          'first if you mean to (and keep it: it is the only thing that opens what it sealed).',
      };
    }
    const db = openDatabase(config.dbPath);
    let sealed: number;
    try {
      sealed = countSealedRows(db);
    } finally {
      db.close();
    }
    const calls = sealed === 1 ? '1 stored call holds' : `${sealed} stored calls hold`;
    if (sealed > 0 && !options.discardSealed) {
      return {
        ok: false,
        message:
          `${calls} arguments sealed with the lost key, which a new key can never open: nothing was ` +
          `changed. Restore ${keyPath} from a backup if you can. To make a new key anyway, run ` +
          `"${NEW_KEY_COMMAND} --discard-sealed": those calls can then never be replayed, and any of ` +
          'them awaiting approval ends VAULT_KEY_MISMATCH at the next start.',
      };
    }
    loadOrCreateVaultKey(config.dataDir);
    const lost =
      sealed > 0
        ? ` ${calls} arguments sealed with the lost key: they can no longer be replayed, and any of them awaiting approval ends VAULT_KEY_MISMATCH at the next start.`
        : '';
    return {
      ok: true,
      message: `Created ${keyPath} (mode 0600): back it up with the database.${lost} Start Toolscope again.`,
    };
  } finally {
    lock.release();
  }
}
