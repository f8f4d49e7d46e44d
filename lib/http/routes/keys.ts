import { z } from 'zod';
import { keyJson } from '../../access/key-json';
import type { KeyPermissions } from '../../access/key-store';
import { ROLES } from '../../access/roles';
import { ApiError } from '../../errors';
import { compileToolGlob } from '../../policy/tool-glob';
import type { Toolscope } from '../../server/create-toolscope';
import { audit } from '../audit';
import { jsonBody, paramOf, parseWith } from '../request';
import { json } from '../respond';
import { defineRoutes } from '../route';

const ruleList = z.array(z.string().min(1).max(4096)).max(200);

/** `POST /api/v1/keys`'s body. A name people and the audit trail read: letters, digits, `._@-` and spaces. */
export const newKeyBody = z
  .object({
    name: z
      .string()
      .trim()
      .regex(
        /^[A-Za-z0-9][A-Za-z0-9 ._@-]{0,63}$/,
        'a name of 1-64 letters, digits, spaces or ._@- (starting with a letter or digit)',
      ),
    role: z.enum(ROLES),
    permissions: z.object({ allow: ruleList, ask: ruleList, deny: ruleList }).partial().strict().optional(),
    tools: z.array(z.string().min(1).max(256)).max(1000).optional(),
  })
  .strict();

/** Names that stand for principals other than named keys: a key may not take one. */
function reservedNames(ts: Toolscope): Set<string> {
  return new Set(['local', 'anonymous', 'cli', ...(ts.config.token ? ['admin'] : [])]);
}

/** The key's own rules, checked as the config's are (syntax, tools, specifiers): a 400 naming each bad one. */
function checkedPermissions(
  ts: Toolscope,
  permissions: z.infer<typeof newKeyBody>['permissions'],
): KeyPermissions | null {
  if (!permissions) return null;
  const full: KeyPermissions = {
    allow: permissions.allow ?? [],
    ask: permissions.ask ?? [],
    deny: permissions.deny ?? [],
  };
  const rules = (['allow', 'ask', 'deny'] as const).flatMap((list) =>
    full[list].map((rule) => ({ list, rule, session: null })),
  );
  const issues = ts.policy.check(rules).map((issue) => {
    const index = Number(issue.path.match(/\d+/)?.[0] ?? 0);
    const rule = rules[index];
    return {
      path: `permissions.${rule?.list}[${full[rule?.list ?? 'allow'].indexOf(rule?.rule ?? '')}]`,
      message: issue.message,
    };
  });
  if (issues.length > 0) {
    const first = issues[0]!;
    throw new ApiError('INVALID_RULES', `${first.path}: ${first.message}`, { errors: issues });
  }
  return full;
}

/** The key's tool globs, checked as fault rules' are: a 400 naming the first one we cannot match. */
function checkedTools(tools: readonly string[] | undefined): void {
  tools?.forEach((glob, index) => {
    try {
      compileToolGlob(glob);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new ApiError('INVALID_REQUEST', `tools[${index}]: ${message}`, {
        errors: [{ path: `tools[${index}]`, message }],
      });
    }
  });
}

export default defineRoutes([
  {
    /** `GET /api/v1/keys`: every named key, revoked ones included, oldest first; never a token. */
    method: 'GET',
    path: '/api/v1/keys',
    action: 'keys.manage',
    handle: (c, ts) => json(c, { keys: ts.access.keys.list().map(keyJson) }),
  },
  {
    /**
     * `POST /api/v1/keys` with `{ "name", "role", "permissions"?, "tools"? }`: 201
     * `{ "key": { "id", "name", "role", "created_at" }, "token" }` — the token shown this once, only
     * its SHA-256 kept. 409 ALREADY_EXISTS for a name an active key has; 400 naming a bad field or rule.
     */
    method: 'POST',
    path: '/api/v1/keys',
    action: 'keys.manage',
    body: 'json',
    handle(c, ts) {
      const body = parseWith(newKeyBody, jsonBody(c), 'INVALID_REQUEST');
      if (reservedNames(ts).has(body.name.toLowerCase())) {
        throw new ApiError(
          'INVALID_REQUEST',
          `name: "${body.name}" names another kind of principal here; choose another.`,
        );
      }
      if (ts.access.keys.list().some((key) => key.revokedAt === null && key.name === body.name)) {
        throw new ApiError('ALREADY_EXISTS', `An active key is already named "${body.name}".`);
      }
      const permissions = checkedPermissions(ts, body.permissions);
      checkedTools(body.tools);
      const { key, token } = ts.access.keys.create({
        name: body.name,
        role: body.role,
        permissions,
        tools: body.tools ?? null,
      });
      audit(c, ts, 'key.created', key.id, { name: key.name, role: key.role, permissions, tools: key.tools });
      const { id, name, role, created_at } = keyJson(key);
      return json(c, { key: { id, name, role, created_at }, token }, 201);
    },
  },
  {
    /** `DELETE /api/v1/keys/:id`: revokes the key at once (its requests get 401, its logins end); 200 with the key, 404 unknown. */
    method: 'DELETE',
    path: '/api/v1/keys/:id',
    action: 'keys.manage',
    handle(c, ts) {
      const id = paramOf(c, 'id');
      const before = ts.access.keys.byId(id);
      const key = before?.kind === 'key' ? ts.access.keys.revoke(id) : null;
      if (!key) throw new ApiError('NOT_FOUND', `No key with id "${id.slice(0, 64)}".`);
      ts.access.sessions.endAllOf(key.ref);
      if (before?.revokedAt === null) audit(c, ts, 'key.revoked', key.id, { name: key.name, role: key.role });
      return json(c, { key: keyJson(key) });
    },
  },
]);
