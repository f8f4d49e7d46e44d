import type { KeyRecord } from './key-store';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A key as `GET /api/v1/keys` lists it: never its token (nor the token's hash); its scope when it has one. */
export function keyJson(key: KeyRecord) {
  return {
    id: key.id,
    name: key.name,
    role: key.role,
    created_at: iso(key.createdAt) as string,
    last_used_at: iso(key.lastUsedAt),
    revoked_at: iso(key.revokedAt),
    ...(key.permissions ? { permissions: key.permissions } : {}),
    ...(key.tools ? { tools: key.tools } : {}),
  };
}
