import { describe, expect, it } from 'vitest';
import { FAULT_KIND_NAMES } from '@/lib/ui/fault-kinds';
import { validateAgainstSchema } from '@/lib/ui/json-schema';
import { defaultFaultParams, faultParamsSchema } from './fault-params-schema';

describe('faultParamsSchema', () => {
  it('gives every kind a schema its default parameters satisfy', () => {
    for (const kind of FAULT_KIND_NAMES) {
      expect(validateAgainstSchema(faultParamsSchema(kind), defaultFaultParams(kind)), kind).toEqual([]);
    }
  });

  it('asks for the required fields with the types the API takes', () => {
    expect(faultParamsSchema('latency')).toMatchObject({
      properties: { ms: { type: 'integer' }, jitter_ms: { type: 'integer' } },
      required: ['ms'],
    });
    expect(defaultFaultParams('corrupt_output')).toEqual({ mode: 'replace' });
    expect(validateAgainstSchema(faultParamsSchema('fail_first'), {}).map((i) => i.path)).toEqual(['n']);
  });
});
