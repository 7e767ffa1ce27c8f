import { describe, expect, it } from 'vitest';
import { checkCloneUrl } from './url-policy';

function accepted(url: string) {
  const check = checkCloneUrl(url);
  if (!check.ok) throw new Error(`expected ${url} to be accepted, got: ${check.error}`);
  return check.value;
}

function refusal(url: string): string {
  const check = checkCloneUrl(url);
  if (check.ok) throw new Error(`expected ${url} to be refused`);
  return check.error;
}

describe('clone URL policy', () => {
  it('accepts https, http, ssh and git URLs unchanged, in any letter case', () => {
    for (const url of [
      'https://github.com/org/repo.git',
      'http://172.18.0.1:8080/public.git',
      'ssh://git@github.com/org/repo.git',
      'ssh://git@[::1]:2222/repo',
      'git://example.org/repo',
      'HTTPS://Example.org/Repo',
    ]) {
      expect(accepted(url).url).toBe(url.startsWith('HTTPS') ? 'https://Example.org/Repo' : url);
    }
  });

  it('accepts the scp-like ssh form and reports it as ssh', () => {
    expect(accepted('git@github.com:org/repo.git')).toEqual({ url: 'git@github.com:org/repo.git', scheme: 'ssh' });
    expect(accepted('example.org:repo').scheme).toBe('ssh');
  });

  it('refuses other schemes, naming the scheme', () => {
    expect(refusal('file:///etc/passwd')).toContain("'file'");
    expect(refusal('FILE:///tmp/x')).toContain("'file'");
    expect(refusal('ftp://example.org/repo')).toContain("'ftp'");
    expect(refusal('javascript://x')).toContain("'javascript'");
  });

  it('refuses remote-helper syntax such as ext:: and fd::', () => {
    expect(refusal('ext::sh -c touch% /tmp/pwned')).toMatch(/remote helper/);
    expect(refusal('fd::17')).toMatch(/remote helper/);
    expect(refusal('https::example.org/repo')).toMatch(/remote helper/);
  });

  it('refuses plain local paths', () => {
    for (const url of ['/srv/repo.git', './repo', '../repo', 'repo', '~/repo']) {
      expect(refusal(url)).toMatch(/local paths/);
    }
  });

  it('refuses option-like hosts, users and paths, control characters and empty URLs', () => {
    expect(refusal('-uhttps://x')).toMatch(/"-"/);
    expect(refusal('ssh://-oProxyCommand=touch%20x/repo')).toMatch(/host/);
    expect(refusal('ssh://-user@host/repo')).toMatch(/user name/);
    expect(refusal('-oProxyCommand=x:repo')).toMatch(/"-"/);
    expect(refusal('host:-upload-pack=x')).toMatch(/path/);
    expect(refusal('https://example.org/repo\nhttps://evil')).toMatch(/control/);
    expect(refusal('https://')).toMatch(/host/);
    expect(refusal('')).toMatch(/empty/);
  });

  it('moves http(s) credentials out of the URL, percent-decoded', () => {
    expect(accepted('https://alice:s%40cret@example.org/org/repo.git?x=1')).toEqual({
      url: 'https://example.org/org/repo.git?x=1',
      scheme: 'https',
      username: 'alice',
      password: 's@cret',
    });
    expect(accepted('https://ghp_token@github.com/org/repo')).toEqual({
      url: 'https://github.com/org/repo',
      scheme: 'https',
      username: 'ghp_token',
      password: undefined,
    });
  });

  it('refuses a password inside an ssh or git URL instead of passing it on', () => {
    expect(refusal('ssh://user:pw@host/repo')).toMatch(/password/);
    expect(refusal('git://user:pw@host/repo')).toMatch(/password/);
  });
});
