import { describe, expect, it } from 'vitest';
import { applyTransform, compilePolicy, domainMatches, normaliseHost } from './policy';

describe('normaliseHost', () => {
  it('lower-cases and drops the port and a trailing dot', () => {
    expect(normaliseHost('API.Example.COM:8443')).toBe('api.example.com');
    expect(normaliseHost('example.com.')).toBe('example.com');
  });

  it('refuses addresses, single labels and garbage: only names can be allowed', () => {
    for (const raw of [
      '169.254.169.254',
      '127.0.0.1:80',
      '[::1]:80',
      'localhost',
      '',
      'a..b',
      'ex ample.com',
      'x.com:abc',
    ]) {
      expect(normaliseHost(raw)).toBeNull();
    }
    expect(normaliseHost(undefined)).toBeNull();
  });
});

describe('domainMatches', () => {
  it('matches exact names only exactly', () => {
    expect(domainMatches('example.com', 'example.com')).toBe(true);
    expect(domainMatches('example.com', 'api.example.com')).toBe(false);
    expect(domainMatches('example.com', 'badexample.com')).toBe(false);
  });

  it('matches wildcards at any depth below the suffix, but not the suffix itself', () => {
    expect(domainMatches('*.example.com', 'api.example.com')).toBe(true);
    expect(domainMatches('*.example.com', 'a.b.example.com')).toBe(true);
    expect(domainMatches('*.example.com', 'example.com')).toBe(false);
    expect(domainMatches('*.example.com', 'evilexample.com')).toBe(false);
    expect(domainMatches('*.Example.com', 'api.example.com')).toBe(true);
  });
});

describe('compilePolicy', () => {
  const policy = compilePolicy({
    mode: 'custom',
    allow_domains: ['deb.debian.org', '*.github.com'],
    allow_cidrs: ['10.1.2.3/8', '192.168.0.7'],
    transforms: [
      { domain: '*.example.com', inject_headers: { 'x-a': 'wild' } },
      { domain: 'api.example.com', inject_headers: { 'x-a': 'exact' } },
      { domain: '*.b.example.com', inject_headers: { 'x-a': 'longer' } },
    ],
  });

  it('allows listed names and names with a transform, nothing else', () => {
    expect(policy.allowsHost('deb.debian.org')).toBe(true);
    expect(policy.allowsHost('api.github.com')).toBe(true);
    expect(policy.allowsHost('other.example.com')).toBe(true);
    expect(policy.allowsHost('security.debian.org')).toBe(false);
    expect(policy.allowsHost('github.com')).toBe(false);
  });

  it('picks the most specific transform', () => {
    expect(policy.transformFor('api.example.com')?.inject_headers).toEqual({ 'x-a': 'exact' });
    expect(policy.transformFor('c.b.example.com')?.inject_headers).toEqual({ 'x-a': 'longer' });
    expect(policy.transformFor('z.example.com')?.inject_headers).toEqual({ 'x-a': 'wild' });
    expect(policy.transformFor('deb.debian.org')).toBeUndefined();
  });

  it('normalises CIDRs to their network address', () => {
    expect(policy.cidrs).toEqual(['10.0.0.0/8', '192.168.0.7/32']);
  });

  it('allows no name under deny-all, and any under allow-all', () => {
    expect(compilePolicy({ mode: 'deny-all' }).allowsHost('example.com')).toBe(false);
    expect(compilePolicy({ mode: 'allow-all' }).allowsHost('example.com')).toBe(true);
  });
});

describe('applyTransform', () => {
  it('strips first, then injects, overwriting what the sandbox sent in any case', () => {
    const out = applyTransform(
      { host: 'api.example.com', authorization: 'sandbox-token', 'x-debug': '1', cookie: 'a=b' },
      {
        domain: 'api.example.com',
        strip_headers: ['X-Debug', 'Cookie'],
        inject_headers: { Authorization: 'Bearer host' },
      },
    );
    expect(out).toEqual({ host: 'api.example.com', authorization: 'Bearer host' });
  });

  it('never rewrites framing headers (Host, Content-Length, Transfer-Encoding, Connection)', () => {
    const headers = { host: 'a.example.com', 'content-length': '3', connection: 'keep-alive' };
    const out = applyTransform(headers, {
      domain: 'a.example.com',
      strip_headers: ['Host', 'Connection'],
      inject_headers: { 'Content-Length': '999', 'Transfer-Encoding': 'chunked', 'x-ok': 'yes' },
    });
    expect(out).toEqual({ ...headers, 'x-ok': 'yes' });
  });

  it('returns the headers unchanged without a transform', () => {
    const headers = { host: 'a.example.com' };
    expect(applyTransform(headers, undefined)).toBe(headers);
  });
});
