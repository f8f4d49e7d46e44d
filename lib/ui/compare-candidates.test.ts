import { describe, expect, it } from 'vitest';
import { type CompareSubject, candidateGroups, candidateUrl, GROUP_LIMIT, lineageGroups } from './compare-candidates';

const trace: CompareSubject = {
  kind: 'trace',
  id: 't-replay',
  tool: 'calculator',
  sessionId: 's1',
  replayOf: 't-original',
  replays: ['t-r1', 't-r2'],
};
const session: CompareSubject = { kind: 'session', id: 's1~replay-1', replayOf: 's1' };

describe('candidateUrl', () => {
  it('puts the original on the left, the subject otherwise', () => {
    expect(candidateUrl(trace, 't-original')).toBe('/traces/t-original/compare/t-replay');
    expect(candidateUrl(trace, 't-r1')).toBe('/traces/t-replay/compare/t-r1');
    expect(candidateUrl(session, 's1')).toBe('/sessions/s1/compare/s1~replay-1');
    expect(candidateUrl(session, 'other/one')).toBe('/sessions/s1~replay-1/compare/other%2Fone');
  });
});

describe('lineageGroups', () => {
  it('lists the original, then the replays newest first', () => {
    expect(lineageGroups(trace)).toEqual([
      { key: 'original', title: 'The call this replays', candidates: [{ id: 't-original', relation: 'original' }] },
      {
        key: 'replays',
        title: 'Its replays',
        candidates: [
          { id: 't-r2', relation: 'replay' },
          { id: 't-r1', relation: 'replay' },
        ],
      },
    ]);
    expect(lineageGroups({ ...session, replayOf: null })).toEqual([]);
  });
});

describe('candidateGroups', () => {
  const groups = [
    { key: 'replays', title: 'R', candidates: [{ id: 'a' }, { id: 'b' }] },
    { key: 'session', title: 'S', candidates: [{ id: 'b' }, { id: 'me' }, { id: 'c', sessionId: 'run-42' }] },
    { key: 'empty', title: 'E', candidates: [] },
  ];

  it('lists each candidate once, in its first group, never the subject; empty groups go', () => {
    expect(candidateGroups('me', groups, '').map((g) => [g.key, g.candidates.map((c) => c.id)])).toEqual([
      ['replays', ['a', 'b']],
      ['session', ['c']],
    ]);
  });

  it("filters by the search text over ids and session ids, but keeps the server's search results", () => {
    expect(candidateGroups('me', groups, ' RUN-4 ').map((g) => g.candidates.map((c) => c.id))).toEqual([['c']]);
    const searched = [{ key: 'search', title: 'Q', candidates: [{ id: 'zzz' }], searched: true }, ...groups];
    expect(candidateGroups('me', searched, 'nothing').map((g) => g.key)).toEqual(['search']);
  });

  it(`shows at most ${GROUP_LIMIT} per group`, () => {
    const many = [{ key: 'recent', title: 'R', candidates: Array.from({ length: 30 }, (_, i) => ({ id: `t${i}` })) }];
    expect(candidateGroups('me', many, '')[0]!.candidates).toHaveLength(GROUP_LIMIT);
  });
});
