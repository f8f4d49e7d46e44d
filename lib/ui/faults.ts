import type { faultRuleJson } from '../api/faults';
import type { FaultKind } from '../executor/types';
import { NOT_REACHABLE, UNREACHABLE } from './unreachable';

/**
 * A fault rule as `GET /api/v1/faults` lists it: `params` snake_case as the API takes them,
 * `active` = enabled, not expired and under its maximum hits (it breaks matching calls now).
 */
export type FaultRuleJson = ReturnType<typeof faultRuleJson>;

/** `GET /api/v1/faults`: newest first, and how many are active. */
export interface FaultRulesJson {
  faults: FaultRuleJson[];
  active: number;
}

/** The body of `POST /api/v1/faults` (and, any part of it, of `PATCH /api/v1/faults/:id`). */
export interface FaultRuleBody {
  name?: string;
  tool?: string;
  session_id?: string | null;
  kind?: FaultKind;
  params?: Record<string, unknown>;
  probability?: number | string;
  seed?: number | string | null;
  max_hits?: number | string | null;
  expires_at?: number | null;
  enabled?: boolean;
  hits?: 0;
}

/** The TanStack Query key of the rules, shared by the Faults page and the navigation's indicator. */
export const FAULTS_KEY = ['faults'] as const;

/** A field's complaint from a 400 `INVALID_FAULT_RULE` (`params.n`, `tool`, …). */
export interface FaultFieldError {
  path: string;
  message: string;
}

/** An answer of the faults API that is not 2xx, matched on its shape (`isFaultApiError`), not `instanceof`. */
export interface FaultApiError extends Error {
  code: string;
  status: number;
  errors: FaultFieldError[];
}

/** Whether `error` is a refusal from the faults API. */
export function isFaultApiError(error: unknown): error is FaultApiError {
  return error instanceof Error && Array.isArray((error as Partial<FaultApiError>).errors);
}

function apiError(status: number, code: string, message: string, errors: FaultFieldError[]): FaultApiError {
  return Object.assign(new Error(message), { name: 'FaultApiError', code, status, errors });
}

/** The field errors of a 400's `details.errors`, tolerating any shape. */
export function fieldErrorsOf(details: unknown): FaultFieldError[] {
  const errors = (details as { errors?: unknown } | null | undefined)?.errors;
  if (!Array.isArray(errors)) return [];
  return errors.flatMap((entry): FaultFieldError[] => {
    if (!entry || typeof entry !== 'object') return [];
    const { path, message } = entry as Record<string, unknown>;
    const dotted = Array.isArray(path) ? path.map(String).join('.') : typeof path === 'string' ? path : '';
    return [{ path: dotted, message: String(message ?? '') }];
  });
}

async function send<T>(url: string, init?: RequestInit): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, { cache: 'no-store', ...init });
  } catch (error) {
    throw Object.assign(apiError(0, UNREACHABLE, NOT_REACHABLE, []), { cause: error });
  }
  if (response.ok) return (await response.json()) as T;
  const body = (await response.json().catch(() => null)) as {
    error?: { code?: string; message?: string; details?: unknown };
  } | null;
  throw apiError(
    response.status,
    body?.error?.code ?? `HTTP_${response.status}`,
    body?.error?.message ?? `HTTP ${response.status}`,
    fieldErrorsOf(body?.error?.details),
  );
}

const jsonBody = (body: unknown): RequestInit => ({
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

const rulePath = (id: string) => `/api/v1/faults/${encodeURIComponent(id)}`;

/** `GET /api/v1/faults`. */
export const fetchFaultRules = () => send<FaultRulesJson>('/api/v1/faults');

/** `POST /api/v1/faults` → the new rule. */
export const createFaultRule = (body: FaultRuleBody) =>
  send<FaultRuleJson>('/api/v1/faults', { method: 'POST', ...jsonBody(body) });

/** `PATCH /api/v1/faults/:id` → the rule as changed. */
export const updateFaultRule = (id: string, body: FaultRuleBody) =>
  send<FaultRuleJson>(rulePath(id), { method: 'PATCH', ...jsonBody(body) });

/** `DELETE /api/v1/faults/:id`. */
export const deleteFaultRule = (id: string) => send<{ deleted: boolean }>(rulePath(id), { method: 'DELETE' });

/** `POST /api/v1/faults/disable-all` → how many rules were switched off. */
export const disableAllFaultRules = () => send<{ disabled: number }>('/api/v1/faults/disable-all', { method: 'POST' });

/** `POST /api/v1/faults/reset`: every rule deleted. */
export const resetFaultRules = () => send<{ deleted: number }>('/api/v1/faults/reset', { method: 'POST' });

/** The rules with one replaced by the server's answer, the active count recomputed. */
export function withRule(list: FaultRulesJson, rule: FaultRuleJson): FaultRulesJson {
  const known = list.faults.some((r) => r.id === rule.id);
  const faults = known ? list.faults.map((r) => (r.id === rule.id ? rule : r)) : [rule, ...list.faults];
  return { faults, active: faults.filter((r) => r.active).length };
}

/** The rules without one, the active count recomputed. */
export function withoutRule(list: FaultRulesJson, id: string): FaultRulesJson {
  const faults = list.faults.filter((r) => r.id !== id);
  return { faults, active: faults.filter((r) => r.active).length };
}

/** Why a rule is not breaking calls now, or that it is. */
export type RuleState = 'active' | 'disabled' | 'expired' | 'used up' | 'inactive';

/** The rule's state in words, from what the server says and the clock. */
export function ruleState(rule: FaultRuleJson, now: number): RuleState {
  if (rule.active) return 'active';
  if (!rule.enabled) return 'disabled';
  if (rule.expires_at !== null && Date.parse(rule.expires_at) <= now) return 'expired';
  if (rule.max_hits !== null && rule.hits >= rule.max_hits) return 'used up';
  return 'inactive';
}
