import type { FaultKind } from '@/lib/executor/types';
import { FAULT_KINDS } from '@/lib/ui/fault-kinds';
import type { FaultFieldError, FaultRuleBody, FaultRuleJson } from '@/lib/ui/faults';

/** A registered tool as the rule form knows it: its name, and how many attempts its retry policy allows. */
export interface FaultTool {
  name: string;
  maxAttempts: number;
}

/**
 * Why a `fail_first` rule would break every call of the tool it names: the tool's retry policy
 * allows no more than `n` attempts, so no attempt runs the tool. Null when it is fine, or the
 * target is a glob or an unknown tool (the page does not guess what a glob matches).
 */
export function failFirstWarning(draft: FaultDraft, tools: readonly FaultTool[]): string | null {
  if (draft.kind !== 'fail_first') return null;
  const n = Number(draft.params.fail_first?.n);
  const tool = tools.find((t) => t.name === draft.tool.trim());
  if (!tool || !Number.isInteger(n) || n < 1 || tool.maxAttempts > n) return null;
  const attempts = `${tool.maxAttempts} attempt${tool.maxAttempts === 1 ? '' : 's'}`;
  return `${tool.name} makes at most ${attempts} per call: with n = ${n} every call fails and the tool never runs. For retries that succeed, pick a tool with more attempts (n < its attempts).`;
}

/** When a rule stops: kept as it is (editing), never, or this long from saving. */
export const EXPIRY_CHOICES = {
  keep: { label: 'keep', ms: null },
  never: { label: 'never', ms: null },
  '5m': { label: 'in 5 minutes', ms: 5 * 60_000 },
  '15m': { label: 'in 15 minutes', ms: 15 * 60_000 },
  '1h': { label: 'in 1 hour', ms: 60 * 60_000 },
  '8h': { label: 'in 8 hours', ms: 8 * 60 * 60_000 },
  '24h': { label: 'in 24 hours', ms: 24 * 60 * 60_000 },
} as const;
export type ExpiryChoice = keyof typeof EXPIRY_CHOICES;

/** The rule form's fields as typed: text, so the server (the one validator) judges them. */
export interface FaultDraft {
  name: string;
  tool: string;
  session: string;
  kind: FaultKind;
  /** Per kind, so switching kinds back and forth keeps what was typed. */
  params: Partial<Record<FaultKind, Record<string, string | boolean>>>;
  probability: string;
  seed: string;
  maxHits: string;
  expiry: ExpiryChoice;
  enabled: boolean;
}

/** A new rule's form: every call of the tool, always, no limit. */
export function emptyDraft(tool = ''): FaultDraft {
  return {
    name: '',
    tool,
    session: '',
    kind: 'fail_first',
    params: {},
    probability: '1',
    seed: '',
    maxHits: '',
    expiry: 'never',
    enabled: true,
  };
}

function paramText(value: unknown): string | boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  return typeof value === 'number' ? String(value) : JSON.stringify(value);
}

/** The form for editing `rule`: its values as text, its expiry kept. */
export function draftFromRule(rule: FaultRuleJson): FaultDraft {
  const params: Record<string, string | boolean> = {};
  for (const field of FAULT_KINDS[rule.kind].fields) params[field.key] = paramText(rule.params[field.key]);
  return {
    name: rule.name,
    tool: rule.tool,
    session: rule.session_id ?? '',
    kind: rule.kind,
    params: { [rule.kind]: params },
    probability: String(rule.probability),
    seed: rule.seed === null ? '' : String(rule.seed),
    maxHits: rule.max_hits === null ? '' : String(rule.max_hits),
    expiry: rule.expires_at === null ? 'never' : 'keep',
    enabled: rule.enabled,
  };
}

/** A number as typed: a number when it reads as one, else the text (the server names the field). */
function numberOrText(text: string): number | string {
  const trimmed = text.trim();
  const value = Number(trimmed);
  return trimmed !== '' && Number.isFinite(value) ? value : trimmed;
}

/** JSON when it parses, else the text itself. */
function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The kind's parameters from the form: blank optional fields left out, numbers and JSON read. */
export function paramsOf(draft: FaultDraft): Record<string, unknown> {
  const typed = draft.params[draft.kind] ?? {};
  const params: Record<string, unknown> = {};
  for (const field of FAULT_KINDS[draft.kind].fields) {
    const value = typed[field.key];
    if (field.type === 'checkbox') {
      params[field.key] = value === true;
      continue;
    }
    if (field.type === 'select') {
      params[field.key] = typeof value === 'string' && value !== '' ? value : field.options?.[0];
      continue;
    }
    if (typeof value !== 'string' || value.trim() === '') continue;
    params[field.key] =
      field.type === 'number' ? numberOrText(value) : field.type === 'json' ? jsonOrText(value) : value;
  }
  return params;
}

/**
 * The body of `POST /api/v1/faults` for the form. `now` dates a relative expiry. Blank seed: the
 * server picks one; blank max hits: no limit.
 */
export function createBody(draft: FaultDraft, now: number): FaultRuleBody {
  const body: FaultRuleBody = {
    name: draft.name.trim(),
    tool: draft.tool.trim(),
    session_id: draft.session.trim() === '' ? null : draft.session.trim(),
    kind: draft.kind,
    params: paramsOf(draft),
    probability: draft.probability.trim() === '' ? 1 : numberOrText(draft.probability),
    max_hits: draft.maxHits.trim() === '' ? null : numberOrText(draft.maxHits),
    enabled: draft.enabled,
  };
  if (draft.seed.trim() !== '') body.seed = numberOrText(draft.seed);
  const expiry = expiresAt(draft.expiry, now);
  if (expiry !== undefined) body.expires_at = expiry;
  return body;
}

function expiresAt(choice: ExpiryChoice, now: number): number | null | undefined {
  if (choice === 'keep') return undefined;
  const ms = EXPIRY_CHOICES[choice].ms;
  return ms === null ? null : now + ms;
}

/**
 * The body of `PATCH /api/v1/faults/:id`: only what the form changed, so an untouched seed does
 * not restart the rule's draws and a kept expiry stays as it was.
 */
export function patchBody(rule: FaultRuleJson, draft: FaultDraft, now: number): FaultRuleBody {
  const full = createBody(draft, now);
  const before: Record<string, unknown> = {
    name: rule.name,
    tool: rule.tool,
    session_id: rule.session_id,
    kind: rule.kind,
    params: rule.params,
    probability: rule.probability,
    max_hits: rule.max_hits,
    enabled: rule.enabled,
    seed: rule.seed,
  };
  const patch: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(full)) {
    // A relative expiry is a new instant each time; "never" is a change only for a rule that expires.
    const changed =
      key === 'expires_at'
        ? value !== null || rule.expires_at !== null
        : JSON.stringify(sorted(value)) !== JSON.stringify(sorted(before[key]));
    if (changed) patch[key] = value;
  }
  // A changed kind replaces the parameters whole.
  if ('kind' in patch) patch.params = full.params;
  return patch as FaultRuleBody;
}

/** Objects with sorted keys, so key order never counts as a change. */
function sorted(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => [k, sorted(v)]),
  );
}

/** The form's field for an API path (`params.n` → `params.n`, `session_id` → `session`…). */
const FIELD_OF_PATH: Record<string, string> = {
  name: 'name',
  tool: 'tool',
  session_id: 'session',
  kind: 'kind',
  probability: 'probability',
  seed: 'seed',
  max_hits: 'maxHits',
  expires_at: 'expiry',
  enabled: 'enabled',
};

/**
 * The server's field errors by form field (`params.<key>` for parameters); what names no field
 * of the form goes under `other`.
 */
export function errorsByField(errors: readonly FaultFieldError[], kind: FaultKind): Record<string, string> {
  const keys = new Set(FAULT_KINDS[kind].fields.map((f) => `params.${f.key}`));
  const out: Record<string, string> = {};
  const add = (field: string, message: string) => {
    out[field] = out[field] ? `${out[field]} ${message}` : message;
  };
  for (const { path, message } of errors) {
    const top = path.split('.')[0] ?? '';
    if (top === 'params') {
      const field = path.split('.').slice(0, 2).join('.');
      if (keys.has(field)) add(field, message);
      else add('params', path === 'params' ? message : `${path.slice('params.'.length)}: ${message}`);
    } else if (FIELD_OF_PATH[top]) add(FIELD_OF_PATH[top], message);
    else add('other', path ? `${path}: ${message}` : message);
  }
  return out;
}
