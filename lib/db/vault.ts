import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Name of the key file inside the data folder. */
export const VAULT_KEY_FILE = 'vault.key';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const VERSION = 1;
const HEADER_BYTES = 1 + IV_BYTES + TAG_BYTES;

/** Seals secrets at rest (AES-256-GCM) so that the database never holds them in plaintext. */
export interface Vault {
  /**
   * Encrypts `plaintext`. Layout: version byte, 12-byte IV, 16-byte tag, ciphertext.
   * `associatedData` (say, the trace id) binds the sealed value to its owner: opening it under
   * another owner fails, so sealed blobs cannot be swapped between rows.
   */
  seal(plaintext: string, associatedData?: string): Buffer;
  /** Decrypts what `seal` produced; throws `VaultError` when it was altered or sealed with another key. */
  open(sealed: Uint8Array, associatedData?: string): string;
  /** Whether `seal` works: false for a vault without a usable key (see `createKeylessVault`). */
  canSeal(): boolean;
}

/**
 * What went wrong, as a call's error code: `VAULT_KEY_MISMATCH`, a sealed value could not be
 * opened (altered, sealed with another key, or no key to open it); `VAULT_KEY_MISSING`, there is
 * no usable key to seal with.
 */
export type VaultErrorCode = 'VAULT_KEY_MISMATCH' | 'VAULT_KEY_MISSING';

/** A sealed value could not be opened, or the key file is unusable. Never swallowed. */
export class VaultError extends Error {
  override readonly name = 'VaultError';
  constructor(
    message: string,
    readonly code: VaultErrorCode = 'VAULT_KEY_MISMATCH',
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * Whether `error` is a `VaultError` from any copy of this module: matched by name and code, not
 * `instanceof`, because the production build can hold a copy of the class per chunk.
 */
export function isVaultError(error: unknown): error is VaultError {
  if (!(error instanceof Error) || error.name !== 'VaultError') return false;
  const code = (error as { code?: unknown }).code;
  return code === 'VAULT_KEY_MISMATCH' || code === 'VAULT_KEY_MISSING';
}

/**
 * Creates a vault over a key file in `dir` (generated on first use, mode 0600) or over a given
 * 32-byte key. The key file is read lazily, so a process that never seals or opens anything
 * never creates it.
 * @example const vault = createVault({ dir: '.toolscope' }); vault.open(vault.seal('secret'))
 */
export function createVault(source: { dir: string } | { key: Uint8Array }): Vault {
  let key: Buffer | undefined = 'key' in source ? checkKey(Buffer.from(source.key), 'the given key') : undefined;
  const getKey = () => {
    key ??= loadOrCreateVaultKey((source as { dir: string }).dir);
    return key;
  };

  const nextIv = createIvSource();

  return {
    seal(plaintext, associatedData = '') {
      const iv = nextIv();
      const cipher = createCipheriv('aes-256-gcm', getKey(), iv);
      cipher.setAAD(aad(associatedData));
      const ciphertext = cipher.update(plaintext, 'utf8');
      cipher.final();
      const sealed = Buffer.allocUnsafe(HEADER_BYTES + ciphertext.length);
      sealed[0] = VERSION;
      iv.copy(sealed, 1);
      cipher.getAuthTag().copy(sealed, 1 + IV_BYTES);
      ciphertext.copy(sealed, HEADER_BYTES);
      return sealed;
    },
    open(sealed, associatedData = '') {
      const bytes = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
      if (bytes.length < HEADER_BYTES || bytes[0] !== VERSION) {
        throw new VaultError('Sealed value is malformed or of an unknown version');
      }
      const decipher = createDecipheriv('aes-256-gcm', getKey(), bytes.subarray(1, 1 + IV_BYTES));
      decipher.setAAD(aad(associatedData));
      decipher.setAuthTag(bytes.subarray(1 + IV_BYTES, HEADER_BYTES));
      try {
        return Buffer.concat([decipher.update(bytes.subarray(HEADER_BYTES)), decipher.final()]).toString('utf8');
      } catch (cause) {
        throw new VaultError('Sealed value failed authentication: altered, or sealed with another key', undefined, {
          cause,
        });
      }
    },
    // A key file that cannot be read or is not a key cannot seal: the store then keeps nothing
    // rather than fail its commit.
    canSeal() {
      try {
        getKey();
        return true;
      } catch {
        return false;
      }
    },
  };
}

/**
 * A vault with no usable key (`why` says what happened to it): `seal` throws `VAULT_KEY_MISSING`,
 * `open` throws `VAULT_KEY_MISMATCH`, and no key file is ever created.
 */
export function createKeylessVault(why: string): Vault {
  return {
    seal() {
      throw new VaultError(`Cannot seal: ${why}`, 'VAULT_KEY_MISSING');
    },
    open() {
      throw new VaultError(`Cannot open the sealed value: ${why}`, 'VAULT_KEY_MISMATCH');
    },
    canSeal: () => false,
  };
}

/**
 * Random 96-bit IVs, drawn from a pool: a `randomBytes` call costs ~4 µs, as much as the rest of
 * sealing, and `begin` is on every call's path. Every IV is still fresh CSPRNG output used exactly
 * once, which is what GCM needs (random IVs are safe for far more messages than a trace store
 * will ever seal).
 */
function createIvSource(): () => Buffer {
  const POOL_IVS = 256;
  let pool = Buffer.alloc(0);
  let offset = 0;
  return () => {
    if (offset === pool.length) {
      pool = randomBytes(IV_BYTES * POOL_IVS);
      offset = 0;
    }
    offset += IV_BYTES;
    return pool.subarray(offset - IV_BYTES, offset);
  };
}

// The version byte is authenticated too, so a future format cannot be confused with this one.
function aad(associatedData: string): Buffer {
  return Buffer.concat([Buffer.of(VERSION), Buffer.from(associatedData, 'utf8')]);
}

/**
 * Reads `dir/vault.key`, creating it with 32 random bytes and mode 0600 when absent. Safe when
 * several processes start at once: the key is written to a private temporary file and then
 * hard-linked into place, which fails if the file already exists — so exactly one key wins and
 * nobody ever reads a half-written one (an exclusive `wx` create alone would expose an empty
 * file between the create and the write).
 */
export function loadOrCreateVaultKey(dir: string): Buffer {
  const keyPath = path.join(dir, VAULT_KEY_FILE);
  const existing = readKey(keyPath);
  if (existing) return existing;

  fs.mkdirSync(dir, { recursive: true });
  const tempPath = path.join(dir, `.${VAULT_KEY_FILE}.${process.pid}.${randomBytes(6).toString('hex')}`);
  fs.writeFileSync(tempPath, randomBytes(KEY_BYTES), { mode: 0o600, flag: 'wx' });
  try {
    fs.linkSync(tempPath, keyPath);
  } catch (error) {
    if (errnoOf(error) === 'EEXIST') return readKey(keyPath) ?? unreachable(keyPath);
    if (errnoOf(error) !== 'EPERM' && errnoOf(error) !== 'ENOTSUP') throw error;
    // Filesystems without hard links: fall back to an exclusive create of the final file.
    try {
      fs.writeFileSync(keyPath, fs.readFileSync(tempPath), { mode: 0o600, flag: 'wx' });
    } catch (fallbackError) {
      if (errnoOf(fallbackError) !== 'EEXIST') throw fallbackError;
    }
  } finally {
    fs.rmSync(tempPath, { force: true });
  }
  return readKey(keyPath) ?? unreachable(keyPath);
}

/**
 * The key file of data folder `dir` as it is, never created: its key, `absent`, or `unusable` with
 * what is wrong with it (wrong length, unreadable).
 */
export function readVaultKeyFile(
  dir: string,
): { state: 'present'; key: Buffer } | { state: 'absent' } | { state: 'unusable'; problem: string } {
  try {
    const key = readKey(path.join(dir, VAULT_KEY_FILE));
    return key ? { state: 'present', key } : { state: 'absent' };
  } catch (error) {
    return { state: 'unusable', problem: error instanceof Error ? error.message : String(error) };
  }
}

function readKey(keyPath: string): Buffer | undefined {
  try {
    return checkKey(fs.readFileSync(keyPath), keyPath);
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return undefined;
    throw error;
  }
}

function checkKey(key: Buffer, where: string): Buffer {
  if (key.length !== KEY_BYTES) {
    throw new VaultError(`Vault key in ${where} is ${key.length} bytes, expected ${KEY_BYTES}`, 'VAULT_KEY_MISSING');
  }
  return key;
}

function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}

function unreachable(keyPath: string): never {
  throw new VaultError(`Vault key ${keyPath} vanished while it was being created`, 'VAULT_KEY_MISSING');
}
