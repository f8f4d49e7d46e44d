import { isIP } from 'node:net';

/** An IP address as a number: 32 bits for IPv4, 128 for IPv6. */
export interface ParsedAddress {
  family: 4 | 6;
  value: bigint;
}

/** A block of addresses (`10.0.0.0/8`, `fc00::/7`). */
export interface AddressRange {
  family: 4 | 6;
  /** The first address, with the host bits cleared. */
  base: bigint;
  prefix: number;
}

interface SpecialRange extends AddressRange {
  /** What the block is, as a refusal names it: "a loopback address". */
  label: string;
}

/**
 * Blocks that are not the public internet, IANA's special-purpose registries (RFC 6890 and later):
 * what an allowlisted name must not resolve to unless the address itself is allowlisted. Order
 * matters: the first block that contains an address names it.
 */
const SPECIAL_RANGES: SpecialRange[] = [
  ['0.0.0.0/8', 'an unspecified ("this network") address, which reaches this machine'],
  ['10.0.0.0/8', 'a private address'],
  ['100.64.0.0/10', 'a carrier-grade NAT (shared) address'],
  ['127.0.0.0/8', 'a loopback address'],
  ['169.254.0.0/16', 'a link-local address (cloud metadata lives here)'],
  ['172.16.0.0/12', 'a private address'],
  ['192.0.0.0/24', 'an IETF protocol address'],
  ['192.0.2.0/24', 'a documentation address'],
  ['192.88.99.0/24', 'a 6to4 relay address'],
  ['192.168.0.0/16', 'a private address'],
  ['198.18.0.0/15', 'a benchmarking address'],
  ['198.51.100.0/24', 'a documentation address'],
  ['203.0.113.0/24', 'a documentation address'],
  ['224.0.0.0/4', 'a multicast address'],
  ['240.0.0.0/4', 'a reserved or broadcast address'],
  ['::/128', 'an unspecified address, which reaches this machine'],
  ['::1/128', 'a loopback address'],
  ['::ffff:0:0/96', 'an IPv4-mapped IPv6 address'],
  ['::/96', 'an IPv4-compatible IPv6 address'],
  ['::ffff:0:0:0/96', 'an IPv4-translated IPv6 address'],
  ['64:ff9b::/96', 'a NAT64 address (it embeds an IPv4 address)'],
  ['64:ff9b:1::/48', 'a local NAT64 address'],
  ['100::/64', 'a discard-only address'],
  ['2001::/32', 'a Teredo address (it embeds an IPv4 address)'],
  ['2001:db8::/32', 'a documentation address'],
  ['2001::/23', 'an IETF protocol address'],
  ['2002::/16', 'a 6to4 address (it embeds an IPv4 address)'],
  ['3fff::/20', 'a documentation address'],
  ['fc00::/7', 'a unique local (private) address'],
  ['fe80::/10', 'a link-local address'],
  ['fec0::/10', 'a site-local address'],
  ['ff00::/8', 'a multicast address'],
].map(([cidr, label]) => ({ ...(parseRange(cidr as string) as AddressRange), label: label as string }));

/** IPv6 outside 2000::/3 (global unicast) is not assigned for the public internet. */
const GLOBAL_UNICAST = parseRange('2000::/3') as AddressRange;

/**
 * What kind of non-public address `address` is ("a loopback address"), or null when it is a
 * public unicast address. Zone ids (`fe80::1%eth0`) are ignored; what is not an IP is refused.
 * @example describeSpecialAddress('169.254.169.254') // 'a link-local address (cloud metadata lives here)'
 */
export function describeSpecialAddress(address: string): string | null {
  const parsed = parseAddress(address);
  if (!parsed) return 'not an IP address';
  const special = SPECIAL_RANGES.find((range) => rangeContains(range, parsed));
  if (special) return special.label;
  if (parsed.family === 6 && !rangeContains(GLOBAL_UNICAST, parsed)) return 'a reserved IPv6 address';
  return null;
}

/** Whether `range` holds `address` (same family only: `::ffff:127.0.0.1` is not in `127.0.0.0/8`). */
export function rangeContains(range: AddressRange, address: ParsedAddress): boolean {
  if (range.family !== address.family) return false;
  const bits = range.family === 4 ? 32 : 128;
  const shift = BigInt(bits - range.prefix);
  return address.value >> shift === range.base >> shift;
}

/** Parses `10.0.0.0/8`, `fd00::/8` or a single address (a /32 or /128); null when it is neither. */
export function parseRange(text: string): AddressRange | null {
  const slash = text.indexOf('/');
  const address = parseAddress(slash === -1 ? text : text.slice(0, slash));
  if (!address) return null;
  const bits = address.family === 4 ? 32 : 128;
  const prefixText = slash === -1 ? String(bits) : text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > bits) return null;
  const prefix = Number(prefixText);
  const shift = BigInt(bits - prefix);
  return { family: address.family, base: (address.value >> shift) << shift, prefix };
}

/**
 * Parses an IP address in its standard notation (dotted quad, RFC 4291 IPv6 with `::` and an
 * IPv4 tail, optional brackets and zone id). Other IPv4 spellings (`127.1`, `0x7f.1`) are left to
 * the URL parser, which turns them into the dotted quad before anything gets here.
 */
export function parseAddress(text: string): ParsedAddress | null {
  let bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zone = bare.indexOf('%');
  if (zone !== -1) bare = bare.slice(0, zone);
  const family = isIP(bare);
  if (family === 4) return { family: 4, value: ipv4Value(bare) };
  if (family === 6) return { family: 6, value: ipv6Value(bare) };
  return null;
}

function ipv4Value(text: string): bigint {
  return text.split('.').reduce((value, part) => (value << 8n) | BigInt(Number(part)), 0n);
}

function ipv6Value(text: string): bigint {
  let groups = text.toLowerCase();
  // An IPv4 tail (`::ffff:127.0.0.1`) is two 16-bit groups.
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(groups);
  if (tail?.[1]) {
    const v4 = ipv4Value(tail[1]);
    groups = `${groups.slice(0, -tail[1].length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = '', rest] = groups.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = rest === undefined || rest === '' ? [] : rest.split(':');
  const missing = 8 - left.length - right.length;
  const all = rest === undefined ? left : [...left, ...Array<string>(missing).fill('0'), ...right];
  return all.reduce((value, group) => (value << 16n) | BigInt(Number.parseInt(group, 16)), 0n);
}
