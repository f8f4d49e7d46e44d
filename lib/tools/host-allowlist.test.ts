import { describe, expect, it } from 'vitest';
import { createHostAllowlist, DEFAULT_HTTP_ALLOW } from './host-allowlist';

const loopback = createHostAllowlist(DEFAULT_HTTP_ALLOW);
const allows = (list: ReturnType<typeof createHostAllowlist>, url: string) => list.allows(new URL(url));

describe('createHostAllowlist', () => {
  it.each([
    'http://127.0.0.1/',
    'http://127.0.0.1:3000/path?q=1',
    'https://localhost/',
    'http://LOCALHOST:8080/',
    'http://localhost./',
    'http://[::1]:9000/',
    'http://[0:0:0:0:0:0:0:1]/',
    'http://127.1/',
    'http://2130706433/',
    'http://0x7f.0.0.1/',
    'http://0177.0.0.1/',
  ])('the loopback default allows %s', (url) => {
    expect(allows(loopback, url)).toBe(true);
  });

  it.each([
    'http://10.0.0.1/',
    'http://192.168.1.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://0.0.0.0/',
    'http://0/',
    'http://127.0.0.2/',
    'http://example.com/',
    'http://127.0.0.1.nip.io/',
    'http://localhost.evil.com/',
    'http://evil-localhost/',
    'http://127.0.0.1@evil.com/',
    'http://localhost:80@evil.com/',
    'http://evil.com#@127.0.0.1/',
    'http://evil.com\\@127.0.0.1/',
    'http://evil.com?@127.0.0.1/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::]/',
    'http://xn--localhost-/',
  ])('the loopback default refuses %s', (url) => {
    expect(allows(loopback, url)).toBe(false);
  });

  it('restricts an entry with a port to that port, default ports included', () => {
    const list = createHostAllowlist(['localhost:8080', 'api.example.com:443', '[::1]:9000', 'plain.example:80']);
    expect(allows(list, 'http://localhost:8080/')).toBe(true);
    expect(allows(list, 'http://localhost:8081/')).toBe(false);
    expect(allows(list, 'http://localhost/')).toBe(false);
    expect(allows(list, 'https://api.example.com/')).toBe(true);
    expect(allows(list, 'http://api.example.com/')).toBe(false);
    expect(allows(list, 'http://[::1]:9000/')).toBe(true);
    expect(allows(list, 'http://[::1]:9001/')).toBe(false);
    expect(allows(list, 'http://plain.example/')).toBe(true);
  });

  it('matches subdomains, not the domain itself, for a *. entry', () => {
    const list = createHostAllowlist(['*.example.com']);
    expect(allows(list, 'https://api.example.com/')).toBe(true);
    expect(allows(list, 'https://a.b.example.com/')).toBe(true);
    expect(allows(list, 'https://example.com/')).toBe(false);
    expect(allows(list, 'https://evilexample.com/')).toBe(false);
    expect(allows(list, 'https://example.com.evil.org/')).toBe(false);
  });

  it('compares entries in canonical form too', () => {
    const list = createHostAllowlist(['0:0:0:0:0:0:0:1', 'API.Example.COM.', '127.1']);
    expect(allows(list, 'http://[::1]/')).toBe(true);
    expect(allows(list, 'http://api.example.com/')).toBe(true);
    expect(allows(list, 'http://127.0.0.1/')).toBe(true);
  });

  it('allows nothing when empty', () => {
    expect(allows(createHostAllowlist([]), 'http://127.0.0.1/')).toBe(false);
  });

  it.each(['http://localhost', 'user@localhost', 'localhost/path', 'a b'])(
    'rejects the malformed entry %j',
    (entry) => {
      expect(() => createHostAllowlist([entry])).toThrow(/Invalid HTTP allowlist entry/);
    },
  );
});

describe('denied entries', () => {
  it('win over allowed ones, for that port only', () => {
    const list = createHostAllowlist(
      ['127.0.0.1', 'localhost', '::1'],
      ['127.0.0.1:3000', 'localhost:3000', '[::1]:3000'],
    );
    expect(list.allows(new URL('http://127.0.0.1:3000/api/v1/traces'))).toBe(false);
    expect(list.allows(new URL('http://127.1:3000/'))).toBe(false);
    expect(list.allows(new URL('http://localhost:3000/'))).toBe(false);
    expect(list.allows(new URL('http://[::1]:3000/'))).toBe(false);
    expect(list.denies(new URL('http://localhost:3000/'))).toBe(true);
    expect(list.allows(new URL('http://127.0.0.1:8080/'))).toBe(true);
    expect(list.denies(new URL('http://127.0.0.1:8080/'))).toBe(false);
  });
});

describe('address blocks and resolved addresses', () => {
  const url = (text: string) => new URL(text);

  it('accepts CIDR entries for IPs in URLs, and rejects malformed ones', () => {
    const list = createHostAllowlist(['10.0.0.0/8', 'fd00::/8']);
    expect(list.allows(url('http://10.1.2.3:8080/'))).toBe(true);
    expect(list.allows(url('http://[fd12::1]/'))).toBe(true);
    expect(list.allows(url('http://11.0.0.1/'))).toBe(false);
    expect(list.allows(url('http://[::ffff:10.0.0.1]/'))).toBe(false);
    for (const entry of ['10.0.0.0/33', 'fd00::/129', 'example.com/8', '10.0.0.0/x']) {
      expect(() => createHostAllowlist([entry]), entry).toThrow(/Invalid HTTP allowlist entry/);
    }
  });

  it('lets a name lead to public addresses, and to others only when an entry holds them', () => {
    const list = createHostAllowlist(['*.example.test', '192.168.1.0/24', '127.0.0.1:8080']);
    const at = url('http://api.example.test:8080/');
    expect(list.checkAddress(at, '93.184.216.34')).toEqual({ ok: true });
    expect(list.checkAddress(at, '2606:2800:220:1::1')).toEqual({ ok: true });
    expect(list.checkAddress(at, '192.168.1.7')).toEqual({ ok: true });
    expect(list.checkAddress(at, '127.0.0.1')).toEqual({ ok: true });
    expect(list.checkAddress(url('http://api.example.test:9090/'), '127.0.0.1')).toMatchObject({
      ok: false,
      reason: 'not-public',
      label: 'a loopback address',
    });
    expect(list.checkAddress(at, '192.168.2.7')).toMatchObject({ ok: false, label: 'a private address' });
    expect(list.checkAddress(at, '::ffff:192.168.1.7')).toMatchObject({ ok: false, label: /IPv4-mapped/ });
    expect(list.checkAddress(at, 'fe80::1%eth0')).toMatchObject({ ok: false, label: 'a link-local address' });
    expect(list.checkAddress(at, '4000::1')).toMatchObject({ ok: false, label: 'a reserved IPv6 address' });
    expect(list.checkAddress(at, 'not-an-ip')).toMatchObject({ ok: false });
  });

  it('lets a localhost entry stand for the loopback addresses, for its port', () => {
    const list = createHostAllowlist(['localhost:8080']);
    expect(list.checkAddress(url('http://localhost:8080/'), '127.0.0.1')).toEqual({ ok: true });
    expect(list.checkAddress(url('http://localhost:8080/'), '::1')).toEqual({ ok: true });
    expect(list.checkAddress(url('http://localhost:8081/'), '127.0.0.1')).toMatchObject({ ok: false });
    expect(list.checkAddress(url('http://localhost:8080/'), '10.0.0.1')).toMatchObject({ ok: false });
    // The entry is about addresses a name resolves to, not about IPs written in URLs.
    expect(list.allows(url('http://127.0.0.1:8080/'))).toBe(false);
  });

  it('denies every address of this machine on a denied loopback port', () => {
    const list = createHostAllowlist(['*.example.test', '127.0.0.0/8', '::/0'], ['127.0.0.1:3000']);
    const own = url('http://x.example.test:3000/');
    for (const address of ['127.0.0.1', '127.9.9.9', '0.0.0.0', '::1', '::', '::ffff:127.0.0.1', '::ffff:0.0.0.0']) {
      expect(list.checkAddress(own, address), address).toMatchObject({ ok: false, reason: 'denied' });
    }
    expect(list.checkAddress(url('http://x.example.test:3001/'), '127.0.0.1')).toEqual({ ok: true });
  });
});
