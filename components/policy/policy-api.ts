import type { PolicyJson, PreviewJson, RuleBody, RuleError } from './policy-draft';
import { rulesBody } from './policy-draft';

/** An answer of the policy API that is not 2xx: its message and, for `INVALID_RULES`, the field errors. */
export class PolicyApiError extends Error {
  override readonly name = 'PolicyApiError';
  constructor(
    message: string,
    readonly status: number,
    readonly errors: RuleError[],
  ) {
    super(message);
  }
}

async function send<T>(url: string, init?: RequestInit): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, { cache: 'no-store', ...init });
  } catch (error) {
    throw new PolicyApiError(`Could not reach the server: ${String(error)}`, 0, []);
  }
  if (response.ok) return (await response.json()) as T;
  const body = (await response.json().catch(() => null)) as {
    error?: { message?: string; details?: { errors?: RuleError[] } };
  } | null;
  throw new PolicyApiError(
    body?.error?.message ?? `HTTP ${response.status}`,
    response.status,
    body?.error?.details?.errors ?? [],
  );
}

const json = (rules: readonly RuleBody[]): RequestInit => ({
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(rulesBody(rules)),
});

/** `GET /api/v1/policy`. */
export const fetchPolicy = () => send<PolicyJson>('/api/v1/policy');

/** `PUT /api/v1/policy`: replaces the data rules. */
export const putPolicy = (rules: readonly RuleBody[]) =>
  send<PolicyJson>('/api/v1/policy', { method: 'PUT', ...json(rules) });

/** `POST /api/v1/policy/preview`: how `rules` (as the data rules) would have decided the last recorded calls. */
export const previewPolicy = (rules: readonly RuleBody[], signal?: AbortSignal) =>
  send<PreviewJson>('/api/v1/policy/preview', { method: 'POST', ...json(rules), ...(signal ? { signal } : {}) });
