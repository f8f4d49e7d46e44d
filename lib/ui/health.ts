import { formatBytes } from './format';

/** The TanStack Query key of `GET /api/v1/health`, shared by every page's banner. */
export const HEALTH_KEY = ['health'] as const;

/** The store's part of `GET /api/v1/health`, as the banner reads it. */
export interface StoreHealthJson {
  status: 'ok' | 'degraded';
  /** Writes not yet committed. */
  queued: number;
  /** The last failure, kept after recovery; `at` epoch ms when the server says. */
  lastError: { message: string; code: string | null; at: number | null } | null;
  diskFreeBytes: number | null;
}

/** The vault key's part of `GET /api/v1/health` when it is not `ok` (missing, unusable, mismatch…). */
export interface VaultProblemJson {
  status: string;
  /** What happened and how to proceed, as the server words it. */
  message: string | null;
}

/** `GET /api/v1/health` read defensively: unknown fields dropped, missing ones filled in. */
export interface HealthJson {
  status: 'ok' | 'degraded';
  store: StoreHealthJson;
  /** Null while the vault key is fine (or the server does not say). */
  vault: VaultProblemJson | null;
}

const record = (value: unknown): Record<string, unknown> | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const count = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;

/** The store's last error: an object with at least a message (or, defensively, a string). */
function errorOf(value: unknown): StoreHealthJson['lastError'] {
  const message = text(value);
  if (message) return { message, code: null, at: null };
  const error = record(value);
  if (!error) return null;
  const at = typeof error.at === 'string' ? Date.parse(error.at) : count(error.at);
  return {
    message: text(error.message) ?? 'unknown error',
    code: text(error.code),
    at: at !== null && Number.isFinite(at) ? at : null,
  };
}

/**
 * Reads the body of `GET /api/v1/health`; null when it is not one (an older server, a proxy's
 * page). The overall `status` is the server's (the store's); the vault key reports its own state
 * beside it. Upstream MCP servers and the trace export are shown on their pages, not read here.
 */
export function parseHealth(body: unknown): HealthJson | null {
  const root = record(body);
  if (!root || (root.status !== 'ok' && root.status !== 'degraded')) return null;
  const store = record(root.store) ?? {};
  const vault = record(root.vault);
  const vaultStatus = text(vault?.status);
  return {
    status: root.status,
    store: {
      status: store.status === 'degraded' ? 'degraded' : 'ok',
      queued: count(store.queued) ?? 0,
      lastError: errorOf(store.last_error),
      diskFreeBytes: count(store.disk_free_bytes),
    },
    vault: vaultStatus && vaultStatus !== 'ok' ? { status: vaultStatus, message: text(vault?.message) } : null,
  };
}

/** Whether the pages show the banner: the store cannot write, or the vault key needs a person. */
export function needsBanner(health: HealthJson | undefined): health is HealthJson {
  return health !== undefined && (health.status === 'degraded' || health.vault !== null);
}

/** Free disk space: B / KiB / MiB below a GiB, then GiB with one decimal. */
export function formatFreeSpace(bytes: number): string {
  const gib = 1024 ** 3;
  if (bytes < gib) return formatBytes(bytes);
  return `${(bytes / gib).toFixed(1).replace(/\.0$/, '')} GiB`;
}

/** Why a fetch of the health failed: the server did not answer, or answered something else. */
export type HealthFetchError = Error & { unreachable: boolean };

/**
 * `GET /api/v1/health`. Throws a `HealthFetchError`: `unreachable` when no answer came (the
 * server is down or the network is), else for an answer that is not a health report.
 */
export async function fetchHealth(): Promise<HealthJson> {
  let response: Response;
  try {
    response = await fetch('/api/v1/health', { cache: 'no-store' });
  } catch (error) {
    throw Object.assign(new Error(`The server could not be reached (${String(error)}).`), { unreachable: true });
  }
  // A degraded report may come with a 503: the body decides.
  const health = parseHealth(await response.json().catch(() => null));
  if (!health) {
    throw Object.assign(new Error(`GET /api/v1/health: HTTP ${response.status}`), { unreachable: false });
  }
  return health;
}

/** Whether a failed fetch of the health means the server could not be reached. */
export function isUnreachable(error: unknown): boolean {
  return error instanceof Error && (error as Partial<HealthFetchError>).unreachable === true;
}
