import {
  type AddressRange,
  describeSpecialAddress,
  parseAddress,
  parseRange,
  rangeContains,
} from './host-allowlist-ranges';

/** Loopback only: what the HTTP tool may reach unless configured otherwise. */
export const DEFAULT_HTTP_ALLOW: readonly string[] = ['127.0.0.1', 'localhost', '::1'];

interface Entry {
  /** Canonical hostname (as the URL parser writes it), without brackets or trailing dot; '' for a range. */
  host: string;
  /** `*.example.com`: any subdomain, not example.com itself. */
  wildcard: boolean;
  /** Only this port when set; any port otherwise. */
  port: string | null;
  /** The addresses the entry stands for: its IP (a /32 or /128), its CIDR block, or none for a name. */
  range: AddressRange | null;
}

/** Why an address a host resolved to may not be connected to. */
export type AddressVerdict =
  | { ok: true }
  | { ok: false; reason: 'denied'; label: string }
  | { ok: false; reason: 'not-public'; label: string };

/** Decides whether a URL may be requested, by its hostname and port, and the addresses it resolves to. */
export interface HostAllowlist {
  allows(url: URL): boolean;
  /** Whether the URL is refused by name even though its host may be allowed (Toolscope's own API). */
  denies(url: URL): boolean;
  /**
   * Whether `address`, one the URL's host resolved to, may be connected to: an address that is
   * not public (loopback, private, link-local, ...) only when an entry names it or a block
   * holding it; never one of the denied addresses.
   */
  checkAddress(url: URL, address: string): AddressVerdict;
  /** The entries as configured, for messages. */
  readonly entries: readonly string[];
}

const LOOPBACK = ['127.0.0.0/8', '::1/128'].map((cidr) => parseRange(cidr) as AddressRange);
/** What reaches this machine's own listening sockets: loopback and unspecified, IPv4-mapped forms too. */
const THIS_MACHINE = [
  '127.0.0.0/8',
  '::1/128',
  '0.0.0.0/8',
  '::/128',
  '::ffff:127.0.0.0/104',
  '::ffff:0.0.0.0/104',
].map((cidr) => parseRange(cidr) as AddressRange);

/**
 * Builds an allowlist from entries such as `localhost`, `127.0.0.1`, `::1`, `api.example.com`,
 * `localhost:8080` (that port only), `*.example.com` (subdomains only) or `10.0.0.0/8` (a block of
 * addresses, any port).
 *
 * Hostnames are compared in the URL parser's canonical form, so the many spellings of one
 * address agree (`127.1`, `0x7f.0.0.1` and `2130706433` all parse to `127.0.0.1`; `[::1]` and
 * `[0:0:0:0:0:0:0:1]` to `[::1]`), while look-alikes stay different (`127.0.0.1.nip.io`,
 * `0.0.0.0`, `[::ffff:127.0.0.1]`). Matching is on the parsed hostname only, so userinfo tricks
 * (`http://127.0.0.1@evil.com/` has the hostname `evil.com`) do not get through.
 *
 * Names are checked again by what they resolve to (`checkAddress`): a non-public address is
 * refused unless an IP or block entry holds it. `localhost` (and `*.localhost`) entries stand for
 * the loopback addresses too, which is what that name means (RFC 6761).
 *
 * `denied` entries (same forms) win over allowed ones: the app passes its own address, so a
 * model cannot reach Toolscope's API through the loopback allowlist. A denied loopback entry
 * (`127.0.0.1:3000`, `localhost:3000`) denies every address that reaches this machine on that
 * port (all of 127.0.0.0/8, ::1, 0.0.0.0, ::), whatever name led there.
 * @example createHostAllowlist(['localhost']).allows(new URL('http://localhost:3000/')) // true
 */
export function createHostAllowlist(entries: readonly string[], denied: readonly string[] = []): HostAllowlist {
  const parsed = entries.map(parseEntry);
  const refused = denied.map(parseEntry);
  const allowedRanges = parsed.flatMap(addressesOf);
  const deniedRanges = refused.flatMap((entry) => {
    const own = addressesOf(entry);
    const local = own.some((item) => LOOPBACK.some((loop) => overlaps(loop, item.range)));
    return local ? THIS_MACHINE.map((range) => ({ range, port: entry.port })) : own;
  });
  return {
    entries,
    allows: (url) => matchesName(parsed, url) && !matchesName(refused, url),
    denies: (url) => matchesName(refused, url),
    checkAddress(url, address) {
      const port = portOf(url);
      const parsedAddress = parseAddress(address);
      if (!parsedAddress) return { ok: false, reason: 'not-public', label: 'not an IP address' };
      const held = (list: { range: AddressRange; port: string | null }[]) =>
        list.some((item) => (item.port === null || item.port === port) && rangeContains(item.range, parsedAddress));
      if (held(deniedRanges)) return { ok: false, reason: 'denied', label: "Toolscope's own address" };
      if (held(allowedRanges)) return { ok: true };
      const special = describeSpecialAddress(address);
      return special === null ? { ok: true } : { ok: false, reason: 'not-public', label: special };
    },
  };
}

function matchesName(list: Entry[], url: URL): boolean {
  const host = canonicalHost(url.hostname);
  const port = portOf(url);
  const literal = parseAddress(host);
  return list.some((entry) => {
    if (entry.port !== null && entry.port !== port) return false;
    // An IP in the URL matches an IP entry or a block that holds it; a name matches by text.
    if (literal && entry.range) return rangeContains(entry.range, literal);
    if (entry.host === '') return false;
    return entry.wildcard ? host.endsWith(`.${entry.host}`) : host === entry.host;
  });
}

/** The addresses an entry stands for: its own IP or block; the loopback blocks for `localhost`. */
function addressesOf(entry: Entry): { range: AddressRange; port: string | null }[] {
  if (entry.range) return [{ range: entry.range, port: entry.port }];
  if (entry.host === 'localhost' || entry.host.endsWith('.localhost')) {
    return LOOPBACK.map((range) => ({ range, port: entry.port }));
  }
  return [];
}

function overlaps(a: AddressRange, b: AddressRange): boolean {
  if (a.family !== b.family) return false;
  const shorter = a.prefix <= b.prefix ? a : b;
  return rangeContains(shorter, { family: b.family, value: (shorter === a ? b : a).base });
}

function portOf(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

function parseEntry(raw: string): Entry {
  const trimmed = raw.trim().toLowerCase();
  if (trimmed.includes('/')) return parseBlockEntry(raw, trimmed);
  const wildcard = trimmed.startsWith('*.');
  const rest = wildcard ? trimmed.slice(2) : trimmed;
  // A bare IPv6 address ("::1") has colons that are not a port separator.
  const authority =
    rest.includes(':') && !rest.startsWith('[') && rest.indexOf(':') !== rest.lastIndexOf(':') ? `[${rest}]` : rest;
  let url: URL;
  try {
    url = new URL(`http://${authority}/`);
  } catch {
    throw invalidEntry(raw);
  }
  if (url.username || url.password || url.pathname !== '/' || url.search || url.hash) throw invalidEntry(raw);
  const explicitPort = /:\d+$/.test(authority) ? (authority.match(/:(\d+)$/)?.[1] ?? null) : null;
  const host = canonicalHost(url.hostname);
  return { host, wildcard, port: explicitPort, range: wildcard ? null : parseRange(host) };
}

/** `10.0.0.0/8`, `fd00::/8`: any address in the block, any port. */
function parseBlockEntry(raw: string, trimmed: string): Entry {
  const bare = trimmed.startsWith('[') && trimmed.endsWith(']') ? trimmed.slice(1, -1) : trimmed;
  const range = parseRange(bare);
  if (!range) throw invalidEntry(raw);
  return { host: '', wildcard: false, port: null, range };
}

function invalidEntry(raw: string): Error {
  return new Error(
    `Invalid HTTP allowlist entry "${raw}": use a hostname, an IP address, host:port or an address block (10.0.0.0/8)`,
  );
}

function canonicalHost(hostname: string): string {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return bare.endsWith('.') ? bare.slice(0, -1) : bare;
}
