import { describe, expect, it } from 'vitest';
import {
  type AddressRange,
  describeSpecialAddress,
  type ParsedAddress,
  parseAddress,
  parseRange,
  rangeContains,
} from './host-allowlist-ranges';

describe('parseAddress', () => {
  it.each([
    ['0.0.0.0', 4, 0n],
    ['127.0.0.1', 4, 0x7f000001n],
    ['255.255.255.255', 4, 0xffffffffn],
    ['::', 6, 0n],
    ['::1', 6, 1n],
    ['1::', 6, 1n << 112n],
    ['[::1]', 6, 1n],
    ['::ffff:127.0.0.1', 6, 0xffff7f000001n],
    ['::ffff:7f00:1', 6, 0xffff7f000001n],
    ['0:0:0:0:0:ffff:7f00:1', 6, 0xffff7f000001n],
    ['fe80::1%eth0', 6, (0xfe80n << 112n) | 1n],
    ['2001:db8:0:0:1:0:0:1', 6, 0x20010db8000000000001000000000001n],
  ])('reads %s', (text, family, value) => {
    expect(parseAddress(text)).toEqual({ family, value });
  });

  it.each(['127.1', '0x7f.0.0.1', 'localhost', '1.2.3.4.5', ':::', ''])('does not read %j', (text) => {
    expect(parseAddress(text)).toBeNull();
  });
});

describe('parseRange', () => {
  it('clears host bits and holds what it should', () => {
    const range = parseRange('10.1.2.3/8') as AddressRange;
    const at = (text: string) => parseAddress(text) as ParsedAddress;
    expect(range).toEqual({ family: 4, base: 0x0a000000n, prefix: 8 });
    expect(rangeContains(range, at('10.255.0.1'))).toBe(true);
    expect(rangeContains(range, at('11.0.0.1'))).toBe(false);
    expect(rangeContains(range, at('::ffff:10.0.0.1'))).toBe(false);
    expect(parseRange('::/0')).toEqual({ family: 6, base: 0n, prefix: 0 });
    expect(parseRange('1.2.3.4')).toMatchObject({ prefix: 32 });
    for (const bad of ['10.0.0.0/33', '::/129', '10.0.0.0/', '10.0.0.0/-1', 'x/8']) expect(parseRange(bad)).toBeNull();
  });
});

describe('describeSpecialAddress', () => {
  it.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '2a00:1450:4001::200e'])(
    'says %s is public (null)',
    (address) => {
      expect(describeSpecialAddress(address)).toBeNull();
    },
  );

  it.each([
    ['0.1.2.3', /unspecified/],
    ['10.0.0.1', /private/],
    ['100.127.255.255', /carrier-grade NAT/],
    ['127.255.255.254', /loopback/],
    ['169.254.169.254', /link-local/],
    ['172.31.0.1', /private/],
    ['192.168.255.255', /private/],
    ['198.19.0.1', /benchmarking/],
    ['203.0.113.9', /documentation/],
    ['239.255.255.250', /multicast/],
    ['255.255.255.255', /reserved or broadcast/],
    ['::', /unspecified/],
    ['::1', /loopback/],
    ['::ffff:8.8.8.8', /IPv4-mapped/],
    ['::8.8.8.8', /IPv4-compatible/],
    ['64:ff9b::808:808', /NAT64/],
    ['2001:0:1::1', /Teredo/],
    ['2001:db8::1', /documentation/],
    ['2002:808:808::1', /6to4/],
    ['fc00::1', /unique local/],
    ['fdff::1', /unique local/],
    ['febf::1', /link-local/],
    ['fec0::1', /site-local/],
    ['ff05::2', /multicast/],
    ['4000::1', /reserved IPv6/],
    ['not an ip', /not an IP address/],
  ])('names %s', (address, label) => {
    expect(describeSpecialAddress(address)).toMatch(label);
  });
});
