import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { ToolError } from '../executor/errors';
import { settingSource } from './config-source';
import type { HostAllowlist } from './host-allowlist';
import { networkError } from './http-errors';

/** One address a hostname resolved to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * The port through which `http_request` turns a hostname into addresses. The default asks the
 * system (`dns.lookup`, so /etc/hosts counts); tests pass their own to make a name resolve inside.
 */
export type ResolveHost = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver, every address in the order it gave them. */
export const resolveWithSystem: ResolveHost = async (hostname) => {
  const found = await lookup(hostname, { all: true, verbatim: true });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

export interface AddressCheck {
  allowlist: HostAllowlist;
  resolve: ResolveHost;
  configFile: string | null | undefined;
}

/**
 * The addresses to connect to for `url`, every one checked against the allowlist; throws
 * `ADDRESS_NOT_ALLOWED` naming the first refused address and why. The request then connects to
 * these addresses only (no second lookup), so a name cannot resolve to a public address for the
 * check and to an internal one for the connection (DNS rebinding).
 *
 * 1. An IP in the URL is its own address; a name is resolved once, through `resolve`.
 * 2. Every address must pass, not just one: the connection may use any of them.
 */
export async function resolveChecked(
  url: URL,
  check: AddressCheck,
  method: string,
  signal: AbortSignal,
  redirected = '',
): Promise<ResolvedAddress[]> {
  const hostname = bareHostname(url.hostname);
  const family = isIP(hostname);
  const addresses =
    family !== 0
      ? [{ address: hostname, family: family as 4 | 6 }]
      : await abortable(check.resolve(hostname), signal).catch((error: unknown) => {
          if (signal.aborted) throw signal.reason;
          throw networkError(error, method, url);
        });
  if (addresses.length === 0) {
    throw ToolError.business('HOST_NOT_FOUND', `The host "${url.hostname}" does not resolve.`);
  }
  for (const { address } of addresses) {
    const verdict = check.allowlist.checkAddress(url, address);
    if (verdict.ok) continue;
    throw addressRefusal(url, address, addresses, verdict, check, redirected);
  }
  return addresses;
}

function addressRefusal(
  url: URL,
  address: string,
  addresses: ResolvedAddress[],
  verdict: { reason: 'denied' | 'not-public'; label: string },
  { allowlist, configFile }: AddressCheck,
  redirected: string,
): ToolError {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const named =
    bareHostname(url.hostname) === address
      ? `The address ${address}`
      : `"${url.hostname}" resolves to ${address}, which`;
  const details = {
    host: url.host,
    address,
    addresses: addresses.map((item) => item.address),
    reason: verdict.reason,
    range: verdict.label,
    allow: [...allowlist.entries],
    configFile: configFile ?? null,
  };
  if (verdict.reason === 'denied') {
    return new ToolError({
      code: 'ADDRESS_NOT_ALLOWED',
      kind: 'permission',
      message: `${named} on port ${port} reaches Toolscope's own API${redirected}; it cannot be requested.`,
      hint: 'Do not call Toolscope through this tool.',
      details,
    });
  }
  return new ToolError({
    code: 'ADDRESS_NOT_ALLOWED',
    kind: 'permission',
    message:
      `${named} is ${verdict.label}${redirected}. Allowlisted names may only lead to public addresses unless ` +
      `the address itself (or a block holding it, e.g. 10.0.0.0/8) is on the HTTP allowlist (${settingSource('http.allow', configFile)}).`,
    hint: 'Do not retry this host; ask the user to add the address to the HTTP allowlist if it should be reachable.',
    details,
  });
}

function bareHostname(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** `work`, or the signal's reason as soon as it fires (a DNS lookup cannot be cancelled itself). */
function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
