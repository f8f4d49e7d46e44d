import { describe, expect, it } from 'vitest';
import { encodeCursor } from './cursor';
import {
  containsIgnoringAsciiCase,
  idMatches,
  type ListFilter,
  likeContains,
  likePrefix,
  needsBoundedScan,
  resolveLimit,
  resolveListFilter,
  searchesAlone,
  startsWithIgnoringAsciiCase,
} from './list-query';

describe('resolveLimit', () => {
  it('defaults to 50 and clamps to 1..500', () => {
    expect([undefined, Number.NaN, Number.POSITIVE_INFINITY, 0, -1, 1, 2.9, 500, 501].map(resolveLimit)).toEqual([
      50, 50, 50, 1, 1, 1, 2, 500, 500,
    ]);
  });
});

describe('likeContains', () => {
  it('escapes the LIKE wildcards and the escape character', () => {
    expect(likeContains('50%_off\\')).toBe('%50\\%\\_off\\\\%');
    expect(likeContains('plain')).toBe('%plain%');
  });
});

describe('likePrefix', () => {
  it('matches from the start, wildcards taken literally', () => {
    expect(likePrefix('run_1%')).toBe('run\\_1\\%%');
    expect(startsWithIgnoringAsciiCase('Agent-Run', 'aGENT-')).toBe(true);
    expect(startsWithIgnoringAsciiCase('Agent-Run', 'run')).toBe(false);
  });
});

describe('containsIgnoringAsciiCase', () => {
  it('folds ASCII letters only, as SQLite LIKE does', () => {
    expect(containsIgnoringAsciiCase('Call_ABC', 'call_abc')).toBe(true);
    expect(containsIgnoringAsciiCase('ÉCOLE', 'école')).toBe(false);
  });
});

describe('idMatches', () => {
  it('finds an id by a text within its last 8 characters (ID_TAIL_CHARS) or ending it, ignoring ASCII case', () => {
    const id = '01a190d0-1c3a-7a12-8a44-a1d1e7a3e465';
    for (const text of ['e7a3e465', 'A3E4', 'a1d1e7a3e465', id.toUpperCase(), '-a1d1e7a3e465'])
      expect(idMatches(id, text), text).toBe(true);
    for (const text of ['a1d1e7a3', 'd1e7a3e4', '8a44-a1d1', '01a190d0', 'e7a3e465x'])
      expect(idMatches(id, text), text).toBe(false);
    // An id of 8 characters or fewer is its own tail.
    expect(idMatches('call_7', 'call_')).toBe(true);
    expect(idMatches('call_ABC123', 'call_')).toBe(false);
    // Characters are code points, as SQLite counts them.
    expect(idMatches('x🚀🚀🚀🚀🚀🚀🚀🚀', 'x🚀')).toBe(false);
    expect(idMatches('x🚀🚀🚀🚀🚀🚀🚀', 'x🚀')).toBe(true);
  });
});

describe('resolveListFilter', () => {
  it('drops empty values and decodes the cursor', () => {
    expect(resolveListFilter({ tool: '', sessionId: '', text: '', cursor: '', from: Number.NaN })).toEqual({
      limit: 50,
    });
    expect(
      resolveListFilter({ tool: 't', status: 'failed', from: 0, to: 10, text: 'x', limit: 5, cursor: encodeCursor(9) }),
    ).toEqual({
      tool: 't',
      status: 'failed',
      from: 0,
      to: 10,
      text: 'x',
      limit: 5,
      beforeSeq: 9,
    });
  });
});

describe('needsBoundedScan', () => {
  const filter = (extra: Partial<ListFilter>): ListFilter => ({ limit: 50, ...extra });
  it('leaves a text search of a trigram or more alone unbounded: the search index reads every call', () => {
    expect(needsBoundedScan(filter({ text: 'abc' }))).toBe(false);
    expect(needsBoundedScan(filter({ text: 'abc', beforeSeq: 10 }))).toBe(false);
    expect(searchesAlone(filter({ text: '🚀éx' }))).toBe(true);
  });
  it('bounds a shorter text, a text with other filters, two equalities and the faulted flag', () => {
    expect(needsBoundedScan(filter({ text: 'ab' }))).toBe(true);
    expect(needsBoundedScan(filter({ text: 'abc', tool: 't' }))).toBe(true);
    expect(needsBoundedScan(filter({ text: 'abc', from: 1 }))).toBe(true);
    expect(needsBoundedScan(filter({ tool: 't', status: 'failed' }))).toBe(true);
    expect(needsBoundedScan(filter({ faulted: true }))).toBe(true);
    expect(needsBoundedScan(filter({ tool: 't' }))).toBe(false);
  });
  it('bounds the succeeded status alone (the partial status index leaves it out), not the others', () => {
    expect(needsBoundedScan(filter({ status: 'succeeded' }))).toBe(true);
    expect(needsBoundedScan(filter({ status: 'failed' }))).toBe(false);
    expect(needsBoundedScan(filter({ status: 'running' }))).toBe(false);
  });
});
