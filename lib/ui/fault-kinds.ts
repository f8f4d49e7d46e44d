import type { Attempt, AttemptFault, FaultKind } from '../executor/types';
import { formatDuration } from './format';

/** One parameter of a fault kind, as the rule form asks for it (key as the API spells it). */
export interface FaultParamField {
  key: string;
  label: string;
  type: 'number' | 'text' | 'checkbox' | 'select' | 'json';
  required?: boolean;
  placeholder?: string;
  options?: readonly string[];
  help?: string;
}

/** What each kind does, and the parameters it takes (`params` of the API, snake_case). */
export const FAULT_KINDS: Record<FaultKind, { help: string; fields: readonly FaultParamField[] }> = {
  latency: {
    help: 'Adds a delay before the tool runs: ms, plus up to jitter_ms more.',
    fields: [
      { key: 'ms', label: 'Delay (ms)', type: 'number', required: true, placeholder: '500' },
      { key: 'jitter_ms', label: 'Jitter (ms)', type: 'number', placeholder: '0' },
    ],
  },
  timeout: {
    help: "The attempt hangs until its time limit fires (the tool's timeout).",
    fields: [],
  },
  error: {
    help: 'The attempt fails with this error instead of running the tool.',
    fields: [
      { key: 'code', label: 'Error code', type: 'text', required: true, placeholder: 'UPSTREAM_DOWN' },
      { key: 'message', label: 'Message', type: 'text', placeholder: 'Injected failure' },
      { key: 'retryable', label: 'Retryable', type: 'checkbox' },
    ],
  },
  fail_first: {
    help: "The call's first n attempts fail with a retryable error; later ones run the tool (needs a retry policy with more attempts).",
    fields: [{ key: 'n', label: 'Failing attempts (n)', type: 'number', required: true, placeholder: '2' }],
  },
  corrupt_output: {
    help: 'The tool runs; its output is replaced, cut short, or made invalid JSON.',
    fields: [
      { key: 'mode', label: 'Mode', type: 'select', required: true, options: ['replace', 'truncate', 'invalid_json'] },
      {
        key: 'value',
        label: 'Replacement (JSON or text)',
        type: 'json',
        placeholder: '{"garbage": true}',
        help: 'For replace: the output the model gets instead.',
      },
    ],
  },
  exit_code: {
    help: 'A process-like failure: the attempt ends with this exit code and stderr text.',
    fields: [
      { key: 'code', label: 'Exit code', type: 'number', required: true, placeholder: '137' },
      { key: 'stderr', label: 'Stderr', type: 'text', placeholder: 'Killed' },
    ],
  },
  rate_limit: {
    help: 'A retryable 429-like error; the backoff waits at least its Retry-After.',
    fields: [{ key: 'retry_after_ms', label: 'Retry-After (ms)', type: 'number', required: true, placeholder: '2000' }],
  },
};

export const FAULT_KIND_NAMES = Object.keys(FAULT_KINDS) as FaultKind[];

const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const quoted = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * A rule's parameters in a few words, e.g. `500 ms ± 100 ms`, `first 2 attempts`,
 * `UPSTREAM_DOWN (retryable)`, `retry after 2 s`.
 */
export function paramsSummary(kind: FaultKind, params: Record<string, unknown>): string {
  switch (kind) {
    case 'latency': {
      const ms = num(params.ms);
      const jitter = num(params.jitter_ms);
      return `${formatDuration(ms)}${jitter ? ` + up to ${formatDuration(jitter)}` : ''}`;
    }
    case 'timeout':
      return 'hangs until the time limit';
    case 'error':
      return `${String(params.code ?? '?')}${params.retryable ? ' (retryable)' : ''}${params.message ? `: ${String(params.message)}` : ''}`;
    case 'fail_first': {
      const n = num(params.n) ?? 0;
      return `first ${n} attempt${n === 1 ? '' : 's'}`;
    }
    case 'corrupt_output':
      return `${String(params.mode ?? '?')}${params.value !== undefined ? ` → ${quoted(params.value)}` : ''}`;
    case 'exit_code':
      return `exit ${String(params.code ?? '?')}${params.stderr ? `, stderr "${String(params.stderr)}"` : ''}`;
    case 'rate_limit':
      return `retry after ${formatDuration(num(params.retry_after_ms))}`;
  }
}

/**
 * What a fault did to one attempt (`attempt` is its number in the call), e.g. `latency 130 ms`,
 * `fail_first 1/2`, `rate_limit retry after 2 s`.
 */
export function attemptFaultSummary(fault: AttemptFault, attempt: number): string {
  switch (fault.kind) {
    case 'latency':
      return `latency ${formatDuration(fault.ms)}${fault.jitterMs ? ` (jitter up to ${formatDuration(fault.jitterMs)})` : ''}`;
    case 'timeout':
      return 'timeout (hung until the limit)';
    case 'error':
      return `error ${fault.code}${fault.retryable ? ' (retryable)' : ''}`;
    case 'fail_first':
      return `fail_first ${attempt}/${fault.n}`;
    case 'corrupt_output':
      return `corrupt_output ${fault.mode}`;
    case 'exit_code':
      return `exit_code ${fault.code}`;
    case 'rate_limit':
      return `rate_limit retry after ${formatDuration(fault.retryAfterMs)}`;
  }
}

/** Who injected the fault: the rule's name (or id), or a one-off fault given with a replay. */
export function faultSource(fault: AttemptFault): string {
  if (fault.ruleId === null) return 'a one-off fault';
  return `rule “${fault.ruleName ?? fault.ruleId}”`;
}

/** The `/faults` link that shows the rule. */
export function faultRuleHref(ruleId: string): string {
  return `/faults?rule=${encodeURIComponent(ruleId)}`;
}

/** The rule (or one-off fault) behind some of a call's faults: its kinds and the attempts it hit. */
export interface FaultOrigin {
  ruleId: string | null;
  /** The rule's name (its id when the trace has none); `a one-off fault` without a rule. */
  name: string;
  kinds: FaultKind[];
  attempts: number[];
}

/** A call's faults grouped by the rule that fired them, in order of first attempt. */
export function faultSources(attempts: readonly Attempt[]): FaultOrigin[] {
  const byRule = new Map<string, FaultOrigin>();
  for (const attempt of attempts) {
    const fault = attempt.fault;
    if (!fault) continue;
    const key = fault.ruleId ?? '';
    const origin = byRule.get(key) ?? {
      ruleId: fault.ruleId,
      name: fault.ruleId === null ? 'a one-off fault' : (fault.ruleName ?? fault.ruleId),
      kinds: [],
      attempts: [],
    };
    if (!origin.kinds.includes(fault.kind)) origin.kinds.push(fault.kind);
    origin.attempts.push(attempt.number);
    byRule.set(key, origin);
  }
  return [...byRule.values()];
}
