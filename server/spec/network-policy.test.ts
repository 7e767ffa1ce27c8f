import { describe, expect, it } from 'vitest';
import { networkPolicySchema } from './common';

/** Dotted paths of the failing fields, as the 400 body lists them. */
function failures(input: unknown): string[] {
  const result = networkPolicySchema.safeParse(input);
  if (result.success) return [];
  return result.error.issues.map((issue) =>
    issue.path.reduce<string>(
      (path, part) => (typeof part === 'number' ? `${path}[${part}]` : path ? `${path}.${String(part)}` : String(part)),
      '',
    ),
  );
}

describe('NetworkPolicy validation (API.md)', () => {
  it('accepts the three modes and a full custom policy', () => {
    expect(failures({ mode: 'allow-all' })).toEqual([]);
    expect(failures({ mode: 'deny-all' })).toEqual([]);
    expect(
      failures({
        mode: 'custom',
        allow_domains: ['deb.debian.org', '*.github.com', 'A-B.example.co.uk'],
        allow_cidrs: ['10.0.0.0/8', '172.18.0.1/32', '0.0.0.0/0'],
        transforms: [
          { domain: 'api.example.com', inject_headers: { Authorization: 'Bearer x' }, strip_headers: ['Cookie'] },
          { domain: '*.example.org' },
        ],
      }),
    ).toEqual([]);
  });

  it('rejects an unknown mode', () => {
    expect(failures({ mode: 'open' })).toEqual(['mode']);
  });

  it('rejects names that are not hostnames of two or more labels, IPs and ports', () => {
    for (const domain of [
      'localhost',
      '1.2.3.4',
      'example.com:443',
      '-bad.example.com',
      'bad-.example.com',
      '*example.com',
      'a.*.example.com',
      'http://example.com',
      '',
    ]) {
      expect(failures({ mode: 'custom', allow_domains: [domain] }), domain).toEqual(['allow_domains[0]']);
    }
  });

  it('rejects anything but IPv4 CIDRs', () => {
    for (const cidr of ['10.0.0.0/33', '256.1.1.1/8', '::1/128', '10.0.0/8', 'ten/8', '10.0.0.0/8/1']) {
      expect(failures({ mode: 'custom', allow_cidrs: [cidr] }), cidr).toEqual(['allow_cidrs[0]']);
    }
  });

  it('caps the lists: 50 domains, 10 CIDRs, 20 transforms', () => {
    const domains = (n: number) => Array.from({ length: n }, (_, i) => `d${i}.example.com`);
    expect(failures({ mode: 'custom', allow_domains: domains(50) })).toEqual([]);
    expect(failures({ mode: 'custom', allow_domains: domains(51) })).toEqual(['allow_domains']);
    const cidrs = (n: number) => Array.from({ length: n }, (_, i) => `10.0.${i}.0/24`);
    expect(failures({ mode: 'custom', allow_cidrs: cidrs(10) })).toEqual([]);
    expect(failures({ mode: 'custom', allow_cidrs: cidrs(11) })).toEqual(['allow_cidrs']);
    const transforms = (n: number) => domains(n).map((domain) => ({ domain }));
    expect(failures({ mode: 'custom', transforms: transforms(20) })).toEqual([]);
    expect(failures({ mode: 'custom', transforms: transforms(21) })).toEqual(['transforms']);
  });

  it('rejects header values with CR, LF or NUL, and invalid header names', () => {
    for (const value of ['a\r\nX-Evil: 1', 'a\nb', 'a\rb', 'a\0b']) {
      expect(
        failures({ mode: 'custom', transforms: [{ domain: 'api.example.com', inject_headers: { 'X-Key': value } }] }),
        JSON.stringify(value),
      ).toEqual(['transforms[0].inject_headers.X-Key']);
    }
    expect(
      failures({ mode: 'custom', transforms: [{ domain: 'api.example.com', strip_headers: ['Bad Header'] }] }),
    ).toEqual(['transforms[0].strip_headers[0]']);
    expect(
      failures({ mode: 'custom', transforms: [{ domain: 'localhost', inject_headers: { 'X:Y': 'v' } }] }).sort(),
    ).toEqual(['transforms[0].domain', 'transforms[0].inject_headers.X:Y'].sort());
  });

  it('rejects non-empty lists with a mode other than custom, naming each list', () => {
    expect(
      failures({ mode: 'allow-all', allow_domains: ['a.example.com'], allow_cidrs: ['10.0.0.0/8'] }).sort(),
    ).toEqual(['allow_cidrs', 'allow_domains']);
    expect(failures({ mode: 'deny-all', transforms: [{ domain: 'a.example.com' }] })).toEqual(['transforms']);
    expect(failures({ mode: 'deny-all', allow_domains: [] })).toEqual([]);
  });
});
