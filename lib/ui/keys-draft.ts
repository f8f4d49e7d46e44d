import type { Role } from '../access/roles';
import type { KeyJson, KeysApiError, NewKeyBody } from './keys-api';

/** The New key form as typed: tools comma-separated, rules one per line. */
export interface KeyDraft {
  name: string;
  role: Role;
  tools: string;
  allow: string;
  ask: string;
  deny: string;
}

/** The form's fields a complaint can be shown at; `other` is under the form. */
export type KeyField = 'name' | 'role' | 'tools' | 'allow' | 'ask' | 'deny' | 'other';

export const RULE_LISTS = ['allow', 'ask', 'deny'] as const;
export type RuleList = (typeof RULE_LISTS)[number];

export function emptyKeyDraft(role: Role): KeyDraft {
  return { name: '', role, tools: '', allow: '', ask: '', deny: '' };
}

const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

/**
 * The body to send for a draft: blank lines and empty tool names dropped, `tools` and
 * `permissions` left out when empty (an unscoped key). The server checks the rest.
 * @example keyBody({ name: ' ci ', role: 'agent', tools: 'read_file, http_*', allow: 'write_file(notes/**)', ask: '', deny: '' })
 * // { name: 'ci', role: 'agent', tools: ['read_file', 'http_*'], permissions: { allow: ['write_file(notes/**)'] } }
 */
export function keyBody(draft: KeyDraft): NewKeyBody {
  const body: NewKeyBody = { name: draft.name.trim(), role: draft.role };
  const tools = draft.tools
    .split(/[,\n]/)
    .map((tool) => tool.trim())
    .filter(Boolean);
  if (tools.length > 0) body.tools = tools;
  const permissions: NonNullable<NewKeyBody['permissions']> = {};
  for (const list of RULE_LISTS) {
    const rules = lines(draft[list]);
    if (rules.length > 0) permissions[list] = rules;
  }
  if (Object.keys(permissions).length > 0) body.permissions = permissions;
  return body;
}

/** The form field a request path (`name`, `tools.0`, `permissions.allow[2]`, `permissions.deny.1`) is about. */
function fieldOf(path: string): KeyField {
  const head = path.match(/^(?:permissions\.)?(name|role|tools|allow|ask|deny)\b/)?.[1];
  return (head as KeyField | undefined) ?? 'other';
}

/** `INVALID_REQUEST`'s message, `path: message; path: message`, back into its parts. */
function messageParts(message: string): { path: string; message: string }[] {
  const parts: { path: string; message: string }[] = [];
  for (const piece of message.split('; ')) {
    const found = piece.match(/^([A-Za-z_][\w.[\]]*): ([\s\S]*)$/);
    const last = parts.at(-1);
    if (found) parts.push({ path: found[1] ?? '', message: found[2] ?? '' });
    // "name: … here; choose another." is one complaint that holds a "; ".
    else if (last) last.message += `; ${piece}`;
    else parts.push({ path: '', message: piece });
  }
  return parts;
}

/**
 * The server's refusal of a new key, by the form field it is about:
 * - `INVALID_RULES` names each bad rule (`permissions.allow[1]`): shown at its list, quoting the rule sent;
 * - `INVALID_REQUEST` says `path: message; …` (zod's paths, or `name:` for a reserved name);
 * - `ALREADY_EXISTS` is about the name; anything else goes under the form.
 */
export function keyFieldErrors(
  error: Pick<KeysApiError, 'code' | 'message' | 'errors'>,
  sent: NewKeyBody,
): Partial<Record<KeyField, string>> {
  const found: Partial<Record<KeyField, string>> = {};
  const add = (field: KeyField, message: string) => {
    found[field] = found[field] ? `${found[field]}\n${message}` : message;
  };
  if (error.errors.length > 0) {
    for (const { path, message } of error.errors) {
      const rule = path.match(/^permissions\.(allow|ask|deny)\[(\d+)\]/);
      const text = rule ? sent.permissions?.[rule[1] as RuleList]?.[Number(rule[2])] : undefined;
      add(fieldOf(path), text === undefined ? message : `${text}: ${message}`);
    }
  } else if (error.code === 'ALREADY_EXISTS') {
    add('name', error.message);
  } else if (error.code === 'INVALID_REQUEST') {
    for (const part of messageParts(error.message)) {
      const field = fieldOf(part.path);
      add(field, field === 'other' && part.path ? `${part.path}: ${part.message}` : part.message);
    }
  } else {
    add('other', error.message);
  }
  return found;
}

/** Newest first (the key made last on top), the id breaking ties. */
export function sortKeys(keys: readonly KeyJson[]): KeyJson[] {
  return [...keys].sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
}

/** What a key is limited to beside its role: its tools and its own rules; null when it has neither. */
export function keyScope(key: Pick<KeyJson, 'tools' | 'permissions'>): {
  tools: string[] | null;
  rules: Record<RuleList, string[]> | null;
} | null {
  const tools = key.tools ?? null;
  const rules = key.permissions
    ? { allow: key.permissions.allow ?? [], ask: key.permissions.ask ?? [], deny: key.permissions.deny ?? [] }
    : null;
  return tools || rules ? { tools, rules } : null;
}

/** The key list with one key replaced by (or added as) the server's answer. */
export function withKey(keys: readonly KeyJson[], key: KeyJson): KeyJson[] {
  return keys.some((k) => k.id === key.id) ? keys.map((k) => (k.id === key.id ? key : k)) : [...keys, key];
}
