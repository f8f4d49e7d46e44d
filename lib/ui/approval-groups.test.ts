import { describe, expect, it } from 'vitest';
import { bulkScopes, groupApprovals } from './approval-groups';
import type { PendingApprovalJson } from './approvals';

const call = (id: string, batch: string | null, session: string | null, message: string | null = null) =>
  ({
    trace_id: id,
    batch_id: batch,
    session_id: session,
    assistant_message: message === null ? null : { text: message, model: null, truncated: false },
  }) as PendingApprovalJson;

describe('groupApprovals', () => {
  it('groups calls by batch where the oldest stands, counting what waits in each session', () => {
    const groups = groupApprovals([
      call('a', 'b1', 's', 'why'),
      call('b', 'b2', 's'),
      call('c', 'b1', 's', 'why'),
      call('d', null, null),
      call('e', 'b3', 't'),
    ]);
    expect(groups.map((group) => group.calls.map((c) => c.trace_id))).toEqual([['a', 'c'], ['b'], ['d'], ['e']]);
    expect(groups.map((group) => group.sessionPending)).toEqual([3, 3, 0, 1]);
    expect(groups[0]?.message?.text).toBe('why');
    expect(groups.map(bulkScopes)).toEqual([
      { batch: 2, session: 3 },
      { batch: 0, session: 3 },
      { batch: 0, session: 0 },
      { batch: 0, session: 0 },
    ]);
  });

  it('offers no session scope when the batch is the whole session', () => {
    const [group] = groupApprovals([call('a', 'b1', 's'), call('b', 'b1', 's')]);
    expect(bulkScopes(group!)).toEqual({ batch: 2, session: 0 });
  });
});
