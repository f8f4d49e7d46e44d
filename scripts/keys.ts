/**
 * `npm run keys -- <command>`: Toolscope's named keys from the command line, on the data folder's
 * database directly — it works whether the server runs or not (a running server sees the change
 * at its next request).
 *   create --name <name> --role agent|viewer|reviewer|admin [--tools a,b] [--allow rule] [--ask rule] [--deny rule]
 *   list
 *   revoke <id or name>
 * Add --json for output a script can read. The data folder is the server's: TOOLSCOPE_DATA_DIR,
 * else `.toolscope/` here.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { createAccess } from '../lib/access/access';
import { keyJson } from '../lib/access/key-json';
import { isRole, ROLES } from '../lib/access/roles';
import { loadConfig } from '../lib/config';
import { openDatabase } from '../lib/db/open-database';

const USAGE = `Usage: npm run keys -- <command> [--json]
  create --name <name> --role ${ROLES.join('|')} [--tools tool1,tool2] [--allow rule] [--ask rule] [--deny rule]
  list
  revoke <id or name>`;

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: 'string' },
    role: { type: 'string' },
    tools: { type: 'string' },
    allow: { type: 'string', multiple: true },
    ask: { type: 'string', multiple: true },
    deny: { type: 'string', multiple: true },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
});
const [command, target] = positionals;
if (values.help || !command) fail(USAGE);

const config = loadConfig();
const db = openDatabase(config.dbPath);
const access = createAccess({ db, config });
// Whoever runs this can read the data folder: the audit trail names the OS user.
const principal = { id: 'cli', name: `cli (${safeUser()})`, role: 'admin' as const };
const print = (json: unknown, text: string) => console.log(values.json ? JSON.stringify(json, null, 2) : text);

try {
  if (command === 'create') create();
  else if (command === 'list') list();
  else if (command === 'revoke') revoke(target);
  else fail(`Unknown command "${command}".\n${USAGE}`);
} finally {
  db.close();
}

function create(): void {
  const name = values.name?.trim();
  const role = values.role;
  if (!name || !/^[A-Za-z0-9][A-Za-z0-9 ._@-]{0,63}$/.test(name)) {
    fail('--name: 1-64 letters, digits, spaces or ._@- (starting with a letter or digit).');
  }
  if (!isRole(role)) fail(`--role: one of ${ROLES.join(', ')}.`);
  if (['local', 'anonymous', 'cli'].includes(name.toLowerCase())) fail(`--name: "${name}" is reserved.`);
  if (access.keys.list().some((key) => key.revokedAt === null && key.name === name)) {
    fail(`An active key is already named "${name}".`);
  }
  const rules = { allow: values.allow ?? [], ask: values.ask ?? [], deny: values.deny ?? [] };
  const permissions = rules.allow.length + rules.ask.length + rules.deny.length > 0 ? rules : null;
  const tools = values.tools
    ? values.tools
        .split(',')
        .map((tool) => tool.trim())
        .filter(Boolean)
    : null;
  const { key, token } = access.keys.create({ name, role, permissions, tools });
  access.audit.append({ principal, kind: 'key.created', target: key.id, detail: { name, role, permissions, tools } });
  print(
    { key: keyJson(key), token },
    [
      `Created ${role} key "${name}" (${key.id}). Its token, shown this once:`,
      '',
      `  ${token}`,
      '',
      role === 'agent'
        ? 'Agents send it as "Authorization: Bearer <token>".'
        : 'Log in with it at /login, or send it as "Authorization: Bearer <token>".',
      ...(permissions ? ['Rules were not checked against the tools here; the server checks them on each call.'] : []),
    ].join('\n'),
  );
}

function list(): void {
  const keys = access.keys.list().map(keyJson);
  if (keys.length === 0) {
    print(
      { keys },
      'No keys yet: the server is in local mode on loopback. Make one with: npm run keys -- create --name <name> --role admin',
    );
    return;
  }
  const rows = keys.map((key) =>
    [
      key.id,
      key.name,
      key.role,
      key.created_at,
      key.last_used_at ?? '-',
      key.revoked_at ? `revoked ${key.revoked_at}` : 'active',
    ].join('  '),
  );
  print({ keys }, ['id  name  role  created  last used  state', ...rows].join('\n'));
}

function revoke(idOrName: string | undefined): void {
  if (!idOrName) fail('revoke: name the key by its id or its name.');
  const matches = access.keys
    .list()
    .filter((key) => key.id === idOrName || (key.name === idOrName && key.revokedAt === null));
  if (matches.length === 0) fail(`No active key with id or name "${idOrName}".`);
  if (matches.length > 1) fail(`Several keys match "${idOrName}": name it by its id.`);
  const before = matches[0]!;
  const key = access.keys.revoke(before.id);
  if (!key) fail(`No key with id "${before.id}".`);
  access.sessions.endAllOf(key.ref);
  if (before.revokedAt === null) {
    access.audit.append({ principal, kind: 'key.revoked', target: key.id, detail: { name: key.name, role: key.role } });
  }
  print({ key: keyJson(key) }, `Revoked key "${key.name}" (${key.id}): its requests are refused and its logins ended.`);
}

function safeUser(): string {
  try {
    return os.userInfo().username || 'unknown';
  } catch {
    return 'unknown';
  }
}
