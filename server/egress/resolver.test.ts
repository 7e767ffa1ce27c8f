import { describe, expect, it } from 'vitest';
import { EgressRefused, parseHostsOverride, UpstreamResolver, type LookupAll } from './resolver';

function fakeLookup(table: Record<string, string[]>): LookupAll & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (host: string) => {
    calls.push(host);
    const addresses = table[host];
    if (!addresses) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(lookup, { calls });
}

describe('parseHostsOverride', () => {
  it('reads name=address[:port] entries', () => {
    const map = parseHostsOverride(' Echo.Test=172.18.0.1:8080, tls.test=127.0.0.1 ');
    expect(map.get('echo.test')).toEqual({ address: '172.18.0.1', port: 8080 });
    expect(map.get('tls.test')).toEqual({ address: '127.0.0.1', port: undefined });
    expect(parseHostsOverride(undefined).size).toBe(0);
  });

  it('fails loudly on a malformed entry', () => {
    expect(() => parseHostsOverride('echo.test=not-an-ip')).toThrow(/SHOAL_EGRESS_HOSTS_OVERRIDE/);
    expect(() => parseHostsOverride('echo.test=999.1.1.1')).toThrow();
  });
});

describe('UpstreamResolver', () => {
  it('connects to a public address the host resolved', async () => {
    const resolver = new UpstreamResolver(new Map(), fakeLookup({ 'deb.debian.org': ['203.0.113.80'] }));
    await expect(resolver.upstream('deb.debian.org', 80, [])).resolves.toEqual({
      address: '203.0.113.80',
      family: 4,
      port: 80,
    });
  });

  it('refuses a name that resolves to a private or metadata address (DNS rebinding)', async () => {
    const resolver = new UpstreamResolver(
      new Map(),
      fakeLookup({ 'evil.example': ['169.254.169.254'], 'lan.example': ['10.0.0.5'] }),
    );
    await expect(resolver.upstream('evil.example', 80, [])).rejects.toThrow(/private, loopback, link-local/);
    await expect(resolver.upstream('lan.example', 443, [])).rejects.toBeInstanceOf(EgressRefused);
  });

  it('skips forbidden answers and uses an allowed one; an allowed CIDR makes a private one usable', async () => {
    const resolver = new UpstreamResolver(
      new Map(),
      fakeLookup({ mixed: ['10.0.0.5', '203.0.113.9'], lan: ['10.0.0.5'] }),
    );
    expect((await resolver.upstream('mixed', 80, [])).address).toBe('203.0.113.9');
    expect((await resolver.upstream('lan', 80, ['10.0.0.0/24'])).address).toBe('10.0.0.5');
  });

  it('prefers IPv4', async () => {
    const resolver = new UpstreamResolver(new Map(), fakeLookup({ dual: ['2a04:4e42::644', '151.101.2.132'] }));
    expect(await resolver.upstream('dual', 443, [])).toMatchObject({ address: '151.101.2.132', family: 4 });
  });

  it('answers 502 for an unresolvable name', async () => {
    const resolver = new UpstreamResolver(new Map(), fakeLookup({}));
    await expect(resolver.upstream('nowhere.example', 80, [])).rejects.toMatchObject({ status: 502 });
    expect(await resolver.ipv4Addresses('nowhere.example')).toEqual([]);
  });

  it('uses an override as written (address and port), without asking DNS', async () => {
    const lookup = fakeLookup({});
    const resolver = new UpstreamResolver(parseHostsOverride('echo.test=127.0.0.1:9999'), lookup);
    expect(await resolver.upstream('echo.test', 80, [])).toEqual({ address: '127.0.0.1', family: 4, port: 9999 });
    expect(await resolver.ipv4Addresses('echo.test')).toEqual(['127.0.0.1']);
    expect(lookup.calls).toEqual([]);
  });

  it('caches answers briefly', async () => {
    const lookup = fakeLookup({ 'a.example': ['203.0.113.1'] });
    const resolver = new UpstreamResolver(new Map(), lookup);
    await resolver.upstream('a.example', 80, []);
    await resolver.upstream('a.example', 443, []);
    await resolver.ipv4Addresses('a.example');
    expect(lookup.calls).toEqual(['a.example']);
  });
});
