import { describe, expect, it } from 'vitest';
import { toApiError } from '../errors';
import { isStoreUnavailableError, isStoreWideError, StoreUnavailableError } from './store-faults';

const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('store faults', () => {
  it("tells the database's errors from one write's", () => {
    for (const code of [
      'SQLITE_BUSY',
      'SQLITE_BUSY_SNAPSHOT',
      'SQLITE_LOCKED',
      'SQLITE_FULL',
      'SQLITE_READONLY',
      'SQLITE_READONLY_DBMOVED',
      'SQLITE_IOERR',
      'SQLITE_IOERR_WRITE',
      'SQLITE_CANTOPEN',
      'SQLITE_CORRUPT',
      'ENOSPC',
      'EROFS',
    ]) {
      expect(isStoreWideError(coded(code)), code).toBe(true);
    }
    for (const error of [
      coded('SQLITE_CONSTRAINT_TRIGGER'),
      coded('SQLITE_CONSTRAINT_UNIQUE'),
      coded('SQLITE_TOOBIG'),
      coded('SQLITE_MISMATCH'),
      coded('SQLITE_ERROR'),
      new TypeError('bad binding'),
      null,
      'SQLITE_BUSY',
    ]) {
      expect(isStoreWideError(error), String(error)).toBe(false);
    }
  });

  it('answers the store refusing work, and SQLite failing as a whole, 503 STORE_UNAVAILABLE with Retry-After', () => {
    const refused = toApiError(new StoreUnavailableError('Toolscope cannot record calls right now.', 2));
    expect(refused).toMatchObject({ code: 'STORE_UNAVAILABLE', status: 503, headers: { 'retry-after': '2' } });
    expect(refused.message).toBe('Toolscope cannot record calls right now.');
    const locked = toApiError(coded('SQLITE_BUSY', 'database is locked'));
    expect(locked).toMatchObject({ code: 'STORE_UNAVAILABLE', status: 503, headers: { 'retry-after': '1' } });
    expect(locked.message).toMatch(/SQLITE_BUSY: database is locked/);
    expect((locked as { cause?: unknown }).cause).toMatchObject({ code: 'SQLITE_BUSY' });
    // One write's own failure is still a bug of ours: 500.
    expect(toApiError(coded('SQLITE_CONSTRAINT_UNIQUE')).code).toBe('INTERNAL_ERROR');
    expect(isStoreUnavailableError({ code: 'STORE_UNAVAILABLE' })).toBe(true);
  });
});
