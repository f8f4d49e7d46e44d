import { NOT_REACHABLE, UNREACHABLE } from '@/lib/ui/unreachable';
import type { PolicyJson, PreviewJson, RuleBody, RuleError } from './policy-draft';
import { rulesBody } from './policy-draft';

/**
 * An answer of the policy API that is not 2xx (status 0 when the server could not be reached):
 * its code and message and, for `INVALID_RULES`, the field errors. Matched on its shape
 * (`isPolicyApiError`), not `instanceof`: the production build can hold a copy of this module per chunk.
 */
export interface PolicyApiError extends Error {
  name: 'PolicyApiError';
  code: string;
  status: number;
  errors: RuleError[];
}

/** Whether `error` is a refusal from the policy API, made by any copy of this module. */
export function isPolicyApiError(error: unknown): error is PolicyApiError {
  if (!(error instanceof Error) || error.name !== 'PolicyApiError') return false;
  const { code, status, errors } = error as Partial<PolicyApiError>;
  return typeof code === 'string' && typeof status === 'number' && Array.isArray(errors);
}

function policyApiError(status: number, code: string, message: string, errors: RuleError[]): PolicyApiError {
  return Object.assign(new Error(message), { name: 'PolicyApiError' as const, code, status, errors });
}

/** A request whose answer is 2xx; any other answer is thrown as a `PolicyApiError`. */
async function request(url: string, init?: RequestInit): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, { cache: 'no-store', ...init });
  } catch (error) {
    throw Object.assign(policyApiError(0, UNREACHABLE, NOT_REACHABLE, []), { cause: error });
  }
  if (response.ok) return response;
  const body = (await response.json().catch(() => null)) as {
    error?: { code?: string; message?: string; details?: { errors?: RuleError[] } };
  } | null;
  const errors = body?.error?.details?.errors;
  throw policyApiError(
    response.status,
    body?.error?.code ?? `HTTP_${response.status}`,
    body?.error?.message ?? `HTTP ${response.status}`,
    Array.isArray(errors) ? errors : [],
  );
}

async function send<T>(url: string, init?: RequestInit): Promise<T> {
  return (await (await request(url, init)).json()) as T;
}

/** The rules as an answer gives them, with its `ETag`. */
async function policyOf(response: Promise<Response>): Promise<PolicyJson> {
  const answer = await response;
  const body = (await answer.json()) as Omit<PolicyJson, 'etag'>;
  return { ...body, etag: answer.headers.get('etag') };
}

const json = (rules: readonly RuleBody[]): RequestInit => ({
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(rulesBody(rules)),
});

/** `GET /api/v1/policy`. */
export const fetchPolicy = () => policyOf(request('/api/v1/policy'));

/**
 * `PUT /api/v1/policy`: replaces the data rules, if they are still the ones of `etag`
 * (`If-Match`); else a `PolicyApiError` with code `PRECONDITION_FAILED`.
 */
export const putPolicy = (rules: readonly RuleBody[], etag: string | null) => {
  const init = json(rules);
  const headers = { ...(init.headers as Record<string, string>), ...(etag ? { 'if-match': etag } : {}) };
  return policyOf(request('/api/v1/policy', { method: 'PUT', ...init, headers }));
};

/** `POST /api/v1/policy/preview`: how `rules` (as the data rules) would have decided the last recorded calls. */
export const previewPolicy = (rules: readonly RuleBody[], signal?: AbortSignal) =>
  send<PreviewJson>('/api/v1/policy/preview', { method: 'POST', ...json(rules), ...(signal ? { signal } : {}) });
