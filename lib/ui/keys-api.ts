import type { keyJson } from '../access/key-json';
import type { Role } from '../access/roles';
import { NOT_REACHABLE, UNREACHABLE } from './unreachable';

/** A key as `GET /api/v1/keys` lists it: never its token. */
export type KeyJson = ReturnType<typeof keyJson>;

/** The body of `POST /api/v1/keys`. */
export interface NewKeyBody {
  name: string;
  role: Role;
  permissions?: { allow?: string[]; ask?: string[]; deny?: string[] };
  tools?: string[];
}

/** `POST /api/v1/keys`'s 201: the new key and its token, shown this once. */
export interface CreatedKeyJson {
  key: { id: string; name: string; role: Role; created_at: string };
  token: string;
}

/** The TanStack Query key of the keys list. */
export const KEYS_KEY = ['keys'] as const;

/** A field's complaint from a 400 `INVALID_RULES` (`permissions.allow[0]`). */
export interface KeyFieldError {
  path: string;
  message: string;
}

/**
 * An answer of the keys API that is not 2xx (status 0: the server could not be reached). Matched
 * on its shape (`isKeysApiError`), not `instanceof`: the production build can hold a copy of this module per chunk.
 */
export interface KeysApiError extends Error {
  name: 'KeysApiError';
  code: string;
  status: number;
  errors: KeyFieldError[];
}

/** Whether `error` is a refusal from the keys API. */
export function isKeysApiError(error: unknown): error is KeysApiError {
  if (!(error instanceof Error) || error.name !== 'KeysApiError') return false;
  const { code, status, errors } = error as Partial<KeysApiError>;
  return typeof code === 'string' && typeof status === 'number' && Array.isArray(errors);
}

function keysApiError(status: number, code: string, message: string, errors: KeyFieldError[]): KeysApiError {
  return Object.assign(new Error(message), { name: 'KeysApiError' as const, code, status, errors });
}

function fieldErrorsOf(details: unknown): KeyFieldError[] {
  const errors = (details as { errors?: unknown } | null | undefined)?.errors;
  if (!Array.isArray(errors)) return [];
  return errors.flatMap((entry): KeyFieldError[] => {
    if (!entry || typeof entry !== 'object') return [];
    const { path, message } = entry as Record<string, unknown>;
    return [{ path: typeof path === 'string' ? path : '', message: String(message ?? '') }];
  });
}

async function send<T>(url: string, init?: RequestInit): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, { cache: 'no-store', ...init });
  } catch (error) {
    throw Object.assign(keysApiError(0, UNREACHABLE, NOT_REACHABLE, []), { cause: error });
  }
  if (response.ok) return (await response.json()) as T;
  const body = (await response.json().catch(() => null)) as {
    error?: { code?: string; message?: string; details?: unknown };
  } | null;
  throw keysApiError(
    response.status,
    body?.error?.code ?? `HTTP_${response.status}`,
    body?.error?.message ?? `HTTP ${response.status}`,
    fieldErrorsOf(body?.error?.details),
  );
}

/** `GET /api/v1/keys`: every named key, revoked ones included. */
export const fetchKeys = () => send<{ keys: KeyJson[] }>('/api/v1/keys');

/** `POST /api/v1/keys` → the key and its one-time token. */
export const createKey = (body: NewKeyBody) =>
  send<CreatedKeyJson>('/api/v1/keys', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** `DELETE /api/v1/keys/:id`: revokes the key at once → the key as revoked. */
export const revokeKey = (id: string) =>
  send<{ key: KeyJson }>(`/api/v1/keys/${encodeURIComponent(id)}`, { method: 'DELETE' });
