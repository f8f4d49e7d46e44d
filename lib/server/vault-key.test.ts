import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { createVault, VAULT_KEY_FILE } from '../db/vault';
import { type Json, sendJson } from '../http/testing/call-app';
import { serveToolscope } from '../http/testing/serve-toolscope';
import type { Toolscope } from './create-toolscope';
import { testToolscopes } from './testing/test-toolscopes';
import { newVaultKey } from './vault-command';

/**
 * A lost or replaced vault key fails soft: Toolscope starts, never makes a key that would orphan
 * what is sealed, says how to proceed (`vaultHealth`, `GET /api/v1/health`), and only the calls
 * that need the key fail — a pending approval whose sealed arguments do not open ends
 * `VAULT_KEY_MISMATCH`, a replay of one is a 409, a new call with secrets is refused
 * `VAULT_KEY_MISSING` — while every other call runs.
 */
const toolscopes = testToolscopes('toolscope-vault-key-');
const { start, restart } = toolscopes;

const SECRET = 'sk-live-abcdefghijklmnop1234';
const writeCall = (id: string, file: string, content: string) => ({
  id,
  type: 'function',
  function: { name: 'write_file', arguments: JSON.stringify({ path: file, content }) },
});
const keyFile = (ts: Toolscope) => path.join(ts.config.dataDir, VAULT_KEY_FILE);

async function post(ts: Toolscope, body: object): Promise<Json> {
  const answer = await sendJson(ts, 'POST', '/api/v1/tool-calls', body);
  expect(answer.status).toBe(200);
  return answer.json;
}

/** A Toolscope on `dir` with one call awaiting approval whose arguments hold a secret (sealed), stopped. */
async function pendingSealedCall(dir: string): Promise<{ traceId: string; config: Toolscope['config'] }> {
  const first = start(dir);
  const answer = await post(first, {
    wait: false,
    session_id: 'vault-session',
    tool_calls: [writeCall('w1', 'pending.md', `token=${SECRET}`)],
  });
  expect(answer.results[0].status).toBe('awaiting_approval');
  const traceId: string = answer.results[0].trace_id;
  // Sealed for real: the stored arguments hide the secret, the vault opens it.
  expect(JSON.stringify(first.store.get(traceId)?.arguments)).not.toContain(SECRET);
  expect(first.store.openSealedArguments(traceId)?.rawArguments).toContain(SECRET);
  expect(fs.existsSync(keyFile(first))).toBe(true);
  const config = first.config;
  await restartAway(first);
  return { traceId, config };
}

/** Stops and closes `ts` as a shutdown does (its pending calls stay pending on disk). */
async function restartAway(ts: Toolscope): Promise<void> {
  await ts.stop({ by: 'shutdown' });
  toolscopes.crash(ts);
}

function expectEndedMismatch(ts: Toolscope, traceId: string) {
  const trace = ts.store.get(traceId);
  expect(trace).toMatchObject({
    status: 'failed',
    error: { code: 'VAULT_KEY_MISMATCH', retryable: false, kind: 'internal', stage: 'permission' },
    approval: { decision: 'cancelled', by: 'toolscope' },
  });
  expect(trace?.finishedAt).not.toBeNull();
  expect(trace?.stages.find((stage) => stage.name === 'permission')).toMatchObject({ status: 'failed' });
  expect(trace?.stages.find((stage) => stage.name === 'execute')).toMatchObject({ status: 'skipped' });
  // It left the queue, and nothing ran.
  expect(ts.approvals.get(traceId)).toBeNull();
  expect(fs.existsSync(path.join(ts.config.workspace, 'pending.md'))).toBe(false);
}

describe('a lost vault key', () => {
  it('starts anyway, makes no key, ends the pending sealed call VAULT_KEY_MISMATCH and says how to proceed', async () => {
    const dir = toolscopes.dataDir();
    const { traceId } = await pendingSealedCall(dir);
    const keyPath = path.join(dir, VAULT_KEY_FILE);
    const key = fs.readFileSync(keyPath);
    fs.rmSync(keyPath);

    const ts = start(dir);
    expect(ts.resumedAtStart).toBe(0);
    expectEndedMismatch(ts, traceId);
    expect(ts.store.get(traceId)?.error?.message).toMatch(/vault key .*vault\.key is missing/);
    const health = ts.vaultHealth();
    expect(health).toMatchObject({ status: 'missing', sealed_rows: 1 });
    expect(health.message).toContain(keyPath);
    expect(health.message).toContain('restore');
    expect(health.message).toContain('npm run vault -- new-key --discard-sealed');
    expect(health.message).toMatch(/1 call awaiting approval could not be opened/);
    const { json: approvals } = await sendJson(ts, 'GET', '/api/v1/approvals');
    expect(approvals.approvals).toEqual([]);

    // A call with a secret is refused before it runs (write_file would ask: it never gets there).
    const secret = await post(ts, { tool_calls: [writeCall('w2', 'secret.md', `token=${SECRET}`)] });
    expect(secret.results[0]).toMatchObject({
      status: 'failed',
      success: false,
      error: { code: 'VAULT_KEY_MISSING', retryable: false },
    });
    expect(fs.existsSync(path.join(ts.config.workspace, 'secret.md'))).toBe(false);
    expect(ts.store.get(secret.results[0].trace_id)?.error?.code).toBe('VAULT_KEY_MISSING');
    // Calls with nothing to seal run.
    const plain = await post(ts, {
      tool_calls: [{ id: 'c', type: 'function', function: { name: 'calculator', arguments: '{"expression":"2+3"}' } }],
    });
    expect(plain.results[0]).toMatchObject({ status: 'succeeded', success: true });
    // A replay of the sealed call is a structured refusal, not a 500.
    const replay = await sendJson(ts, 'POST', `/api/v1/traces/${traceId}/replay`, {});
    expect(replay.status).toBe(409);
    expect(replay.json.error.code).toBe('VAULT_KEY_MISMATCH');
    expect(replay.json.error.message).toContain(traceId);
    const sessionReplay = await sendJson(ts, 'POST', '/api/v1/sessions/vault-session/replay', {});
    expect(sessionReplay.status).toBe(409);
    expect(sessionReplay.json.error).toMatchObject({
      code: 'VAULT_KEY_MISMATCH',
      message: expect.stringContaining(traceId),
    });
    // Still no key made, by anything above.
    expect(fs.existsSync(keyPath)).toBe(false);

    // The key restored from a backup: everything is as before, and the ended call's sealed
    // arguments were kept (it replays again).
    fs.writeFileSync(keyPath, key, { mode: 0o600 });
    const restored = await restart(ts, dir);
    expect(restored.vaultHealth()).toEqual({ status: 'ok', sealed_rows: null, message: null });
    expect(restored.store.openSealedArguments(traceId)?.rawArguments).toContain(SECRET);
    expect(restored.store.get(traceId)?.status).toBe('failed');
    // The call refused meanwhile kept nothing to replay, and says why.
    const refused = await sendJson(restored, 'POST', `/api/v1/traces/${secret.results[0].trace_id}/replay`, {});
    expect(refused.status).toBe(409);
    expect(refused.json.error.message).toMatch(/not kept/);
  });

  it('with another key in its place: the pending call ends VAULT_KEY_MISMATCH, and new calls are sealed with that key', async () => {
    const dir = toolscopes.dataDir();
    const { traceId } = await pendingSealedCall(dir);
    const keyPath = path.join(dir, VAULT_KEY_FILE);
    const other = Buffer.alloc(32, 7);
    fs.writeFileSync(keyPath, other);

    const ts = start(dir);
    expect(ts.resumedAtStart).toBe(0);
    expectEndedMismatch(ts, traceId);
    const health = ts.vaultHealth();
    expect(health).toMatchObject({ status: 'mismatch', sealed_rows: 1 });
    expect(health.message).toMatch(/not the key that sealed them/);
    expect(health.message).toContain(keyPath);
    const replay = await sendJson(ts, 'POST', `/api/v1/traces/${traceId}/replay`, {});
    expect(replay.status).toBe(409);
    expect(replay.json.error.code).toBe('VAULT_KEY_MISMATCH');

    const again = await post(ts, { wait: false, tool_calls: [writeCall('w3', 'again.md', `token=${SECRET}`)] });
    expect(again.results[0].status).toBe('awaiting_approval');
    expect(fs.readFileSync(keyPath).equals(other)).toBe(true);
    expect(ts.store.openSealedArguments(again.results[0].trace_id)?.rawArguments).toContain(SECRET);
  });

  it('an unusable key file is reported and left as it is', async () => {
    const dir = toolscopes.dataDir();
    const { traceId } = await pendingSealedCall(dir);
    const keyPath = path.join(dir, VAULT_KEY_FILE);
    fs.writeFileSync(keyPath, 'not a key');
    const ts = start(dir);
    expectEndedMismatch(ts, traceId);
    expect(ts.vaultHealth()).toMatchObject({ status: 'unusable', sealed_rows: 1 });
    expect(ts.vaultHealth().message).toMatch(/9 bytes, expected 32/);
    const secret = await post(ts, { tool_calls: [writeCall('w4', 'secret.md', `token=${SECRET}`)] });
    expect(secret.results[0].error.code).toBe('VAULT_KEY_MISSING');
    expect(fs.readFileSync(keyPath, 'utf8')).toBe('not a key');
  });

  it('a new data folder still gets its key on first use', async () => {
    const dir = toolscopes.dataDir();
    const ts = start(dir);
    expect(ts.vaultHealth()).toEqual({ status: 'ok', sealed_rows: null, message: null });
    expect(fs.existsSync(keyFile(ts))).toBe(false);
    const answer = await post(ts, { wait: false, tool_calls: [writeCall('w5', 'a.md', `token=${SECRET}`)] });
    expect(answer.results[0].status).toBe('awaiting_approval');
    expect(fs.statSync(keyFile(ts)).size).toBe(32);
  });
});

describe('npm run vault -- new-key', () => {
  it('refuses while Toolscope runs, never replaces a key, and makes one over sealed calls only when told to discard them', async () => {
    const dir = toolscopes.dataDir();
    const { traceId, config } = await pendingSealedCall(dir);
    const keyPath = path.join(dir, VAULT_KEY_FILE);
    const key = fs.readFileSync(keyPath);

    // A key in place is never replaced.
    const kept = newVaultKey(config, { discardSealed: true });
    expect(kept).toMatchObject({ ok: false, message: expect.stringContaining('never replaces a key') });
    expect(fs.readFileSync(keyPath).equals(key)).toBe(true);

    fs.rmSync(keyPath);
    const running = start(dir);
    const locked = newVaultKey(config, { discardSealed: true });
    expect(locked.ok).toBe(false);
    expect(locked.message).toMatch(/in use by another Toolscope .*only while Toolscope is stopped/);
    expect(fs.existsSync(keyPath)).toBe(false);
    await restartAway(running);

    const refused = newVaultKey(config);
    expect(refused.ok).toBe(false);
    expect(refused.message).toMatch(/1 stored call holds arguments sealed with the lost key/);
    expect(refused.message).toContain('--discard-sealed');
    expect(fs.existsSync(keyPath)).toBe(false);

    const made = newVaultKey(config, { discardSealed: true });
    expect(made.ok).toBe(true);
    expect(made.message).toContain(`Created ${keyPath}`);
    expect(fs.statSync(keyPath).size).toBe(32);
    if (process.platform !== 'win32') expect(fs.statSync(keyPath).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(keyPath).equals(key)).toBe(false);

    // Started on the new key: the call sealed with the old one was already ended at the previous start.
    const ts = start(dir);
    expect(ts.store.get(traceId)?.error?.code).toBe('VAULT_KEY_MISMATCH');
    expect(ts.vaultHealth().status).toBe('ok');
    const secret = await post(ts, { wait: false, tool_calls: [writeCall('w6', 'b.md', `token=${SECRET}`)] });
    expect(secret.results[0].status).toBe('awaiting_approval');
  });

  it('makes a key at once where nothing is sealed', () => {
    const dir = toolscopes.dataDir();
    const config = loadConfig({ TOOLSCOPE_DATA_DIR: dir }, dir);
    expect(newVaultKey(config)).toMatchObject({ ok: true });
    const sealed = createVault({ dir: config.dataDir }).seal('x');
    expect(createVault({ key: fs.readFileSync(path.join(config.dataDir, VAULT_KEY_FILE)) }).open(sealed)).toBe('x');
  });
});

describe('a lost vault key through the HTTP server', () => {
  it('serves, reports the vault in GET /api/v1/health, and answers a replay of a sealed call 409', async () => {
    const served = await serveToolscope();
    try {
      const send = (method: string, url: string, body?: object) =>
        fetch(`${served.baseUrl}${url}`, {
          method,
          headers: body ? { 'content-type': 'application/json' } : {},
          body: body ? JSON.stringify(body) : undefined,
        });
      const posted = await send('POST', '/api/v1/tool-calls', {
        wait: false,
        tool_calls: [writeCall('h1', 'pending.md', `token=${SECRET}`)],
      });
      const traceId: string = ((await posted.json()) as Json).results[0].trace_id;
      // The running process holds its key in memory; the next start finds none.
      fs.rmSync(path.join(served.dir, VAULT_KEY_FILE));
      await served.restart();

      const health = (await (await send('GET', '/api/v1/health')).json()) as Json;
      expect(health.vault).toMatchObject({ status: 'missing', sealed_rows: 1 });
      expect(health.vault.message).toContain('npm run vault -- new-key');
      const trace = (await (await send('GET', `/api/v1/traces/${traceId}`)).json()) as Json;
      expect(trace.status).toBe('failed');
      expect(JSON.stringify(trace)).toContain('VAULT_KEY_MISMATCH');
      const replay = await send('POST', `/api/v1/traces/${traceId}/replay`, {});
      expect(replay.status).toBe(409);
      expect(((await replay.json()) as Json).error.code).toBe('VAULT_KEY_MISMATCH');
      expect(fs.existsSync(path.join(served.dir, VAULT_KEY_FILE))).toBe(false);
    } finally {
      await served.close();
    }
  });
});
