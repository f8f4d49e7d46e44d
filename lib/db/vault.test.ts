import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runInStep } from './run-in-step';
import { createTempDataDir } from './test-database';
import { createVault, loadOrCreateVaultKey, VAULT_KEY_FILE, VaultError } from './vault';

const temp = createTempDataDir('toolscope-vault-');
afterAll(() => temp.remove());

let dirCount = 0;
const freshDir = () => path.join(temp.dir, `data-${++dirCount}`);

describe('vault', () => {
  it('round-trips text, empty and unicode included', () => {
    const vault = createVault({ dir: freshDir() });
    for (const text of ['{"apiKey":"sk-123"}', '', 'héllo 🚀 世界', 'x'.repeat(100_000)]) {
      expect(vault.open(vault.seal(text))).toBe(text);
      expect(vault.open(vault.seal(text, 'trace-1'), 'trace-1')).toBe(text);
    }
  });

  it('lays out version, IV, tag and ciphertext, with a fresh IV every time', () => {
    const vault = createVault({ key: Buffer.alloc(32, 7) });
    const a = vault.seal('same text');
    const b = vault.seal('same text');
    expect(a[0]).toBe(1);
    expect(a.length).toBe(1 + 12 + 16 + Buffer.byteLength('same text'));
    expect(a.subarray(1, 13).equals(b.subarray(1, 13))).toBe(false);
    expect(a.includes('same text')).toBe(false);
    const ivs = new Set(Array.from({ length: 1000 }, () => vault.seal('x').subarray(1, 13).toString('hex')));
    expect(ivs.size).toBe(1000);
  });

  it('fails loudly on any tampering', () => {
    const vault = createVault({ key: Buffer.alloc(32, 1) });
    const sealed = vault.seal('the secret', 'trace-1');
    for (let index = 0; index < sealed.length; index++) {
      const tampered = Buffer.from(sealed);
      tampered[index] = (tampered[index] ?? 0) ^ 0x01;
      expect(() => vault.open(tampered, 'trace-1'), `byte ${index}`).toThrow(VaultError);
    }
    expect(() => vault.open(sealed.subarray(0, sealed.length - 1), 'trace-1')).toThrow(VaultError);
    expect(() => vault.open(sealed.subarray(0, 20), 'trace-1')).toThrow(VaultError);
    expect(() => vault.open(Buffer.alloc(0))).toThrow(VaultError);
  });

  it('refuses a value sealed for another owner or with another key', () => {
    const sealed = createVault({ key: Buffer.alloc(32, 1) }).seal('the secret', 'trace-1');
    expect(() => createVault({ key: Buffer.alloc(32, 1) }).open(sealed, 'trace-2')).toThrow(VaultError);
    expect(() => createVault({ key: Buffer.alloc(32, 1) }).open(sealed)).toThrow(VaultError);
    expect(() => createVault({ key: Buffer.alloc(32, 2) }).open(sealed, 'trace-1')).toThrow(VaultError);
  });

  it('rejects a key that is not 32 bytes', () => {
    expect(() => createVault({ key: Buffer.alloc(16) })).toThrow(VaultError);
  });
});

describe('vault key file', () => {
  it('is created on first use only, with mode 0600, and reused afterwards', () => {
    const dir = freshDir();
    const vault = createVault({ dir });
    expect(fs.existsSync(path.join(dir, VAULT_KEY_FILE))).toBe(false);
    const sealed = vault.seal('kept');
    const keyFile = path.join(dir, VAULT_KEY_FILE);
    expect(fs.statSync(keyFile).size).toBe(32);
    if (process.platform !== 'win32') expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(createVault({ dir }).open(sealed)).toBe('kept');
    expect(fs.readdirSync(dir)).toEqual([VAULT_KEY_FILE]);
  });

  it('refuses a key file of the wrong length instead of replacing it', () => {
    const dir = freshDir();
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, VAULT_KEY_FILE), 'too short');
    expect(() => loadOrCreateVaultKey(dir)).toThrow(/expected 32/);
    expect(() => createVault({ dir }).seal('x')).toThrow(VaultError);
    expect(createVault({ dir }).canSeal()).toBe(false);
    expect(fs.readFileSync(path.join(dir, VAULT_KEY_FILE), 'utf8')).toBe('too short');
  });

  it('ends with one key when several processes create it at once', async () => {
    // Each process creates the keys of the same 200 folders, in step: on a naive
    // check-then-write (or a bare exclusive create) some folders end up with differing keys,
    // or a process reads a key file that is still empty.
    const root = freshDir();
    const dirs = Array.from({ length: 200 }, (_, index) => path.join(root, `d${index}`));
    const results = (await runInStep(
      5,
      path.join(__dirname, 'vault.ts'),
      `(m) => ${JSON.stringify(dirs)}.map((dir) => m.loadOrCreateVaultKey(dir).toString('hex'))`,
    )) as string[][];
    dirs.forEach((dir, index) => {
      const onDisk = fs.readFileSync(path.join(dir, VAULT_KEY_FILE)).toString('hex');
      expect(results.map((keys) => keys[index])).toEqual(Array(results.length).fill(onDisk));
      expect(fs.readdirSync(dir)).toEqual([VAULT_KEY_FILE]);
    });
  }, 60_000);
});
