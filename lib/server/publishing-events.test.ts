import { describe, expect, it } from 'vitest';
import { testPrincipal } from '../access/testing/principals';
import type { StreamEvent } from '../events';
import { testToolscopes } from './testing/test-toolscopes';

const toolscopes = testToolscopes('toolscope-publishing-');

/** `kind:type` (and the stage or attempt) of what the bus heard about one call. */
function story(events: StreamEvent[], traceId: string): string[] {
  return events.flatMap((event) => {
    if (event.kind === 'fault_rule' || event.kind === 'tools' || event.data.trace_id !== traceId) return [];
    const data = event.data;
    const step =
      'stage' in data && data.stage ? ` ${data.stage}` : 'attempt' in data && data.attempt ? ` ${data.attempt}` : '';
    const decision = 'decision' in data && data.decision ? ` ${data.decision}` : '';
    return [`${event.kind}:${data.type}${step}${decision}`];
  });
}

describe('what a Toolscope publishes on its event bus', () => {
  it('stages, attempts and approvals of a call, also with an extra sink (an exporter) configured', async () => {
    const exported: string[] = [];
    const ts = toolscopes.start(toolscopes.dataDir(), {
      sinks: [{ begin: () => {}, update: () => {}, finish: (record) => void exported.push(record.id) }],
    });
    const heard: StreamEvent[] = [];
    ts.events.subscribe((event) => heard.push(event));
    // read_file tries twice: the first attempt fails by the rule, the second reads (a missing file).
    ts.faults.create({ name: 'flaky', tool: 'read_file', kind: 'fail_first', params: { n: 1 } });
    const retried = await ts.executor.execute({ name: 'read_file', arguments: { path: 'missing.txt' } });
    expect(story(heard, retried.metadata.traceId)).toEqual([
      'trace:begin',
      'trace:stage execute',
      'trace:attempt 1',
      'trace:attempt 2',
      'trace:finish',
    ]);

    const asked = ts.executor.execute({ name: 'write_file', arguments: { path: 'a.txt', content: 'x' } });
    for (let i = 0; i < 200 && ts.approvals.size === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    const pending = ts.approvals.list()[0]!.traceId;
    ts.approvals.decide(pending, { decision: 'approve' }, testPrincipal('tester'));
    await asked;
    expect(story(heard, pending)).toEqual([
      'trace:begin',
      'trace:stage permission',
      'trace:update',
      'approval:requested',
      'trace:update',
      'approval:decided approved',
      'trace:stage execute',
      'trace:attempt 1',
      'trace:finish',
    ]);
    // Extra sinks are told off the call's path (the fan-out sink), in a later turn.
    await expect.poll(() => exported).toContain(pending);
    expect(heard.filter((e) => e.kind === 'fault_rule').map((e) => e.data.type)).toEqual(['created']);
  });
});
