import type { FaultKind } from '@/lib/executor/types';
import type { JsonSchema } from '@/lib/ui/json-schema';

/** Each fault kind: what it does, in a line, and its parameters as the API takes them (snake_case). */
export const FAULT_KINDS: Record<FaultKind, { label: string; what: string; params: JsonSchema }> = {
  latency: {
    label: 'latency',
    what: 'Adds a delay before the tool runs.',
    params: {
      type: 'object',
      properties: {
        ms: { type: 'integer', minimum: 0, default: 1000, description: 'Delay in milliseconds.' },
        jitter_ms: { type: 'integer', minimum: 0, description: 'Up to this much more, drawn per attempt.' },
      },
      required: ['ms'],
    },
  },
  timeout: {
    label: 'timeout',
    what: 'Each attempt hangs until its timeout fires.',
    params: { type: 'object', properties: {} },
  },
  error: {
    label: 'error',
    what: 'Each attempt fails with this error.',
    params: {
      type: 'object',
      properties: {
        code: { type: 'string', default: 'INJECTED_ERROR', minLength: 1 },
        message: { type: 'string' },
        retryable: { type: 'boolean' },
      },
      required: ['code'],
    },
  },
  fail_first: {
    label: 'fail first N',
    what: 'The first N attempts fail with a retryable error, then the tool runs.',
    params: {
      type: 'object',
      properties: { n: { type: 'integer', minimum: 1, maximum: 100, default: 2 } },
      required: ['n'],
    },
  },
  corrupt_output: {
    label: 'corrupt output',
    what: 'The tool runs; its output is replaced, cut short or made invalid JSON.',
    params: {
      type: 'object',
      properties: {
        mode: { enum: ['invalid_json', 'truncate', 'replace'], default: 'invalid_json' },
        value: { description: 'The replacement output (mode replace), as JSON.' },
      },
      required: ['mode'],
    },
  },
  exit_code: {
    label: 'exit code',
    what: 'A process-like failure with this exit code and stderr.',
    params: {
      type: 'object',
      properties: { code: { type: 'integer', minimum: 1, maximum: 255, default: 1 }, stderr: { type: 'string' } },
      required: ['code'],
    },
  },
  rate_limit: {
    label: 'rate limit',
    what: 'A retryable 429-like error whose Retry-After the backoff honours.',
    params: {
      type: 'object',
      properties: { retry_after_ms: { type: 'integer', minimum: 0, default: 1000 } },
      required: ['retry_after_ms'],
    },
  },
};

export const FAULT_KIND_NAMES = Object.keys(FAULT_KINDS) as FaultKind[];
