import { describe, expect, it } from 'vitest';
import { formatFreeSpace, needsBanner, parseHealth } from './health';

describe('the health report in the browser', () => {
  it('reads a degraded store: queue, last error with its time, free disk space', () => {
    const health = parseHealth({
      status: 'degraded',
      store: {
        status: 'degraded',
        queued: 12,
        last_error: { message: 'database is locked', code: 'SQLITE_BUSY', at: 1_780_000_000_000 },
        disk_free_bytes: 5 * 1024 ** 3,
      },
      mcp: [{ name: 'flaky', transport: 'stdio', state: 'failed', error: 'exited', next_retry_at: null }],
      otel: { enabled: false, endpoint: null, last_error: null },
    });
    expect(health).toEqual({
      status: 'degraded',
      store: {
        status: 'degraded',
        queued: 12,
        lastError: { message: 'database is locked', code: 'SQLITE_BUSY', at: 1_780_000_000_000 },
        diskFreeBytes: 5 * 1024 ** 3,
      },
      vault: null,
    });
  });

  it('takes what it knows and drops the rest: unknown fields, odd types, an error given as a string or an ISO time', () => {
    const health = parseHealth({
      status: 'degraded',
      version: 3,
      store: { status: 'degraded', queued: '7', last_error: 'disk I/O error', disk_free_bytes: -1, extra: {} },
    });
    expect(health?.store).toEqual({
      status: 'degraded',
      queued: 0,
      lastError: { message: 'disk I/O error', code: null, at: null },
      diskFreeBytes: null,
    });
    expect(
      parseHealth({ status: 'ok', store: { last_error: { at: '2026-12-01T10:00:00.000Z' } } })?.store.lastError,
    ).toEqual({ message: 'unknown error', code: null, at: Date.parse('2026-12-01T10:00:00.000Z') });
    expect(parseHealth({ status: 'ok' })).toEqual({
      status: 'ok',
      store: { status: 'ok', queued: 0, lastError: null, diskFreeBytes: null },
      vault: null,
    });
  });

  it('reads a vault key that needs a person beside a healthy store, and shows the banner for either', () => {
    const missing = parseHealth({
      status: 'ok',
      store: { status: 'ok', queued: 0, last_error: null, disk_free_bytes: 1 },
      vault: { status: 'missing', sealed_rows: 3, message: 'The vault key is missing.' },
    });
    expect(missing?.vault).toEqual({ status: 'missing', message: 'The vault key is missing.' });
    expect(needsBanner(missing ?? undefined)).toBe(true);
    const fine = parseHealth({ status: 'ok', store: {}, vault: { status: 'ok', sealed_rows: null, message: null } });
    expect(fine?.vault).toBeNull();
    expect(needsBanner(fine ?? undefined)).toBe(false);
    expect(needsBanner(parseHealth({ status: 'degraded' }) ?? undefined)).toBe(true);
    expect(needsBanner(undefined)).toBe(false);
  });

  it('is null for a body that is not a health report', () => {
    for (const body of [null, 'ok', [], {}, { status: 'fine' }, { error: { code: 'NOT_FOUND' } }]) {
      expect(parseHealth(body)).toBeNull();
    }
  });

  it('says free space in GiB from a GiB up', () => {
    expect(formatFreeSpace(512 * 1024 ** 2)).toBe('512 MiB');
    expect(formatFreeSpace(3 * 1024 ** 3)).toBe('3 GiB');
    expect(formatFreeSpace(2.25 * 1024 ** 3)).toBe('2.3 GiB');
  });
});
