import path from 'node:path';
import type { SqliteDatabase } from './open-database';
import { createKeylessVault, createVault, readVaultKeyFile, VAULT_KEY_FILE, type Vault } from './vault';

/**
 * The vault of a data folder as `GET /api/v1/health` and the start-up log report it.
 * - `ok`: the key is in place, or nothing stored needs one yet (it is created on first use);
 * - `missing`: `vault.key` is gone while stored calls hold values sealed with it. No key is made:
 *   calls whose arguments need sealing are refused (`VAULT_KEY_MISSING`), sealed values cannot be
 *   opened (`VAULT_KEY_MISMATCH`), every other call runs;
 * - `unusable`: `vault.key` is there but is not a key (wrong length, unreadable); as `missing`;
 * - `mismatch`: `vault.key` did not open the sealed arguments of calls awaiting approval at
 *   start-up (they were ended `VAULT_KEY_MISMATCH`): it is not the key that sealed them. New calls
 *   are sealed with it.
 */
export interface VaultHealth {
  status: 'ok' | 'missing' | 'unusable' | 'mismatch';
  /** Stored calls holding sealed values; null when not counted (status `ok`: counting reads every row). */
  sealed_rows: number | null;
  /** What happened and how to proceed; null when `ok`. */
  message: string | null;
}

/** The data folder's vault for the store, and its state. */
export interface DataFolderVault {
  vault: Vault;
  health(): VaultHealth;
  /**
   * `count` calls awaiting approval were ended because their sealed arguments did not open (at
   * start-up): with the key in place, the state becomes `mismatch`; the message names them.
   */
  unopenedAtStart(count: number): void;
}

/** The stored calls holding sealed values: longer than the one-byte markers of the store (`SAME_AS_ARGUMENTS`…). */
export function countSealedRows(db: SqliteDatabase): number {
  return db
    .prepare(
      'SELECT COUNT(*) FROM tool_calls WHERE length(sealed_arguments) > 1 OR length(sealed_edited_arguments) > 1',
    )
    .pluck()
    .get() as number;
}

/** How to make a new key, as the messages say it. */
export const NEW_KEY_COMMAND = 'npm run vault -- new-key';

/**
 * Opens the vault of data folder `dir` at start-up, never creating a key that would orphan what
 * is sealed: with `vault.key` in place, that key; without it and with nothing sealed in `db`, a
 * vault that creates the key on first use (a new data folder); otherwise a keyless vault (state
 * `missing` or `unusable`) whose message says how to proceed.
 * @example const { vault, health } = openDataFolderVault(config.dataDir, db)
 */
export function openDataFolderVault(dir: string, db: SqliteDatabase): DataFolderVault {
  const keyPath = path.join(dir, VAULT_KEY_FILE);
  const file = readVaultKeyFile(dir);
  let state: VaultHealth = { status: 'ok', sealed_rows: null, message: null };
  let vault: Vault;
  if (file.state === 'present') {
    vault = createVault({ key: file.key });
  } else {
    const sealed = countSealedRows(db);
    if (file.state === 'absent' && sealed === 0) {
      vault = createVault({ dir });
    } else if (file.state === 'absent') {
      vault = createKeylessVault(`the vault key ${keyPath} is missing`);
      state = {
        status: 'missing',
        sealed_rows: sealed,
        message:
          `The vault key ${keyPath} is missing, and the arguments of ${calls(sealed)} stored here are sealed with it. ` +
          'Toolscope did not make a new key, which could never open them. Until this is resolved, calls ' +
          'whose arguments hold secrets are refused (VAULT_KEY_MISSING) and sealed calls cannot be ' +
          `replayed (VAULT_KEY_MISMATCH); other calls run. To proceed, stop Toolscope, then either ` +
          `restore ${keyPath} from a backup, or run "${NEW_KEY_COMMAND} --discard-sealed" to make a new ` +
          `key (those ${calls(sealed)} can then never be replayed), and start it again.`,
      };
    } else {
      vault = createKeylessVault(`the vault key ${keyPath} is unusable (${file.problem})`);
      state = {
        status: 'unusable',
        sealed_rows: sealed,
        message:
          `The vault key ${keyPath} is unusable: ${file.problem}. Toolscope does not replace it. Until ` +
          'this is resolved, calls whose arguments hold secrets are refused (VAULT_KEY_MISSING) and ' +
          'sealed calls cannot be replayed (VAULT_KEY_MISMATCH); other calls run. To proceed, stop ' +
          `Toolscope, then either restore ${keyPath} from a backup, or move it aside and run ` +
          `"${NEW_KEY_COMMAND}"${sealed > 0 ? ' --discard-sealed' : ''} to make a new key, and start it again.`,
      };
    }
  }
  return {
    vault,
    health: () => ({ ...state }),
    unopenedAtStart(count) {
      if (count === 0) return;
      if (state.status !== 'ok') {
        state = {
          ...state,
          message: `${state.message} ${calls(count)} awaiting approval could not be opened and were ended VAULT_KEY_MISMATCH.`,
        };
        return;
      }
      const sealed = countSealedRows(db);
      state = {
        status: 'mismatch',
        sealed_rows: sealed,
        message:
          `The vault key ${keyPath} did not open the sealed arguments of ${calls(count)} awaiting approval: ` +
          'it is not the key that sealed them. They were ended VAULT_KEY_MISMATCH, and older calls sealed ' +
          `with the other key cannot be replayed. If you have that key, stop Toolscope, put it back as ` +
          `${keyPath} and start it again (calls sealed since with the present key then cannot be replayed). ` +
          'Otherwise nothing needs doing: new calls are sealed with the present key.',
      };
    },
  };
}

const calls = (count: number) => (count === 1 ? '1 call' : `${count} calls`);
