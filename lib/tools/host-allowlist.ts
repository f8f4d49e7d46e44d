/** Loopback only: what the HTTP tool may reach unless configured otherwise. */
export const DEFAULT_HTTP_ALLOW: readonly string[] = ['127.0.0.1', 'localhost', '::1'];

interface Entry {
  /** Canonical hostname (as the URL parser writes it), without brackets or trailing dot. */
  host: string;
  /** `*.example.com`: any subdomain, not example.com itself. */
  wildcard: boolean;
  /** Only this port when set; any port otherwise. */
  port: string | null;
}

/** Decides whether a URL may be requested, by its hostname and port. */
export interface HostAllowlist {
  allows(url: URL): boolean;
  /** Whether the URL is refused by name even though its host may be allowed (Toolscope's own API). */
  denies(url: URL): boolean;
  /** The entries as configured, for messages. */
  readonly entries: readonly string[];
}

/**
 * Builds an allowlist from entries such as `localhost`, `127.0.0.1`, `::1`, `api.example.com`,
 * `localhost:8080` (that port only) or `*.example.com` (subdomains only).
 *
 * Hostnames are compared in the URL parser's canonical form, so the many spellings of one
 * address agree (`127.1`, `0x7f.0.0.1` and `2130706433` all parse to `127.0.0.1`; `[::1]` and
 * `[0:0:0:0:0:0:0:1]` to `[::1]`), while look-alikes stay different (`127.0.0.1.nip.io`,
 * `0.0.0.0`, `[::ffff:127.0.0.1]`). Matching is on the parsed hostname only, so userinfo tricks
 * (`http://127.0.0.1@evil.com/` has the hostname `evil.com`) do not get through.
 * `denied` entries (same forms) win over allowed ones: the app passes its own address, so a
 * model cannot reach Toolscope's API through the loopback allowlist.
 * @example createHostAllowlist(['localhost']).allows(new URL('http://localhost:3000/')) // true
 */
export function createHostAllowlist(entries: readonly string[], denied: readonly string[] = []): HostAllowlist {
  const parsed = entries.map(parseEntry);
  const refused = denied.map(parseEntry);
  const matches = (list: Entry[], url: URL) => {
    const host = canonicalHost(url.hostname);
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    return list.some((entry) => {
      if (entry.port !== null && entry.port !== port) return false;
      return entry.wildcard ? host.endsWith(`.${entry.host}`) : host === entry.host;
    });
  };
  return {
    entries,
    allows: (url) => matches(parsed, url) && !matches(refused, url),
    denies: (url) => matches(refused, url),
  };
}

function parseEntry(raw: string): Entry {
  const trimmed = raw.trim().toLowerCase();
  const wildcard = trimmed.startsWith('*.');
  const rest = wildcard ? trimmed.slice(2) : trimmed;
  // A bare IPv6 address ("::1") has colons that are not a port separator.
  const authority =
    rest.includes(':') && !rest.startsWith('[') && rest.indexOf(':') !== rest.lastIndexOf(':') ? `[${rest}]` : rest;
  let url: URL;
  try {
    url = new URL(`http://${authority}/`);
  } catch {
    throw new Error(`Invalid HTTP allowlist entry "${raw}": use a hostname, an IP address or host:port`);
  }
  if (url.username || url.password || url.pathname !== '/' || url.search || url.hash) {
    throw new Error(`Invalid HTTP allowlist entry "${raw}": use a hostname, an IP address or host:port`);
  }
  const explicitPort = /:\d+$/.test(authority) ? (authority.match(/:(\d+)$/)?.[1] ?? null) : null;
  return { host: canonicalHost(url.hostname), wildcard, port: explicitPort };
}

function canonicalHost(hostname: string): string {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return bare.endsWith('.') ? bare.slice(0, -1) : bare;
}
