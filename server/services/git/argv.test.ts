import { describe, expect, it } from 'vitest';
import * as git from './argv';
import { CREDENTIAL_HELPER, PASSWORD_ENV } from './credentials';

const PROTOCOLS = git.PROTOCOL_ARGS;

describe('git argv builders', () => {
  it('resolves relative repository paths against /workspace and keeps absolute ones', () => {
    expect(git.resolveRepoPath('repo')).toBe('/workspace/repo');
    expect(git.resolveRepoPath('./a/../b')).toBe('/workspace/b');
    expect(git.resolveRepoPath('/srv/repo')).toBe('/srv/repo');
    expect(git.status({ path: 'repo' }).argv).toEqual([
      'git',
      '-C',
      '/workspace/repo',
      'status',
      '--porcelain=v2',
      '--branch',
    ]);
  });

  it('puts paths after -- for add and reset, and unstages everything without files', () => {
    expect(git.add({ path: '/r', files: ['-f', 'a b'] }).argv).toEqual(['git', '-C', '/r', 'add', '--', '-f', 'a b']);
    expect(git.reset({ path: '/r' }).argv).toEqual(['git', '-C', '/r', 'reset']);
    expect(git.reset({ path: '/r', files: [] }).argv).toEqual(['git', '-C', '/r', 'reset']);
    expect(git.reset({ path: '/r', files: ['x'] }).argv).toEqual(['git', '-C', '/r', 'reset', '--', 'x']);
  });

  it('never waits on a prompt, pager or editor', () => {
    for (const invocation of [
      git.status({ path: '/r' }),
      git.push({ path: '/r' }),
      git.checkoutBranch({ path: '/r', branch: 'b' }),
    ]) {
      expect(invocation.env).toMatchObject({ GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', GIT_EDITOR: 'true' });
    }
  });

  it('builds clone with pinned transports, branch, depth, and the URL and destination after --', () => {
    const { clone, checkout, fetchCommit } = git.cloneInvocations({
      url: 'https://example.org/repo.git',
      path: 'dest',
      branch: 'dev',
      depth: 2,
    });
    expect(clone.argv).toEqual([
      'git',
      ...PROTOCOLS,
      'clone',
      '--branch=dev',
      '--depth=2',
      '--',
      'https://example.org/repo.git',
      '/workspace/dest',
    ]);
    expect(clone.argv.join(' ')).toContain('protocol.allow=never');
    expect(clone.network).toBe(true);
    expect(checkout).toBeUndefined();
    expect(fetchCommit).toBeUndefined();
  });

  it('checks out commit_id after a clone, fetching it first in a shallow clone', () => {
    const deep = git.cloneInvocations({ url: 'git://h/r', path: '/d', commit_id: 'abc123' });
    expect(deep.checkout?.argv).toEqual(['git', '-C', '/d', 'checkout', 'abc123', '--']);
    expect(deep.fetchCommit).toBeUndefined();
    const shallow = git.cloneInvocations({ url: 'git://h/r', path: '/d', commit_id: 'abc123', depth: 1 });
    expect(shallow.fetchCommit?.argv.slice(-5)).toEqual(['/d', 'fetch', '--depth=1', 'origin', 'abc123']);
    expect(shallow.fetchCommit?.argv).toEqual(expect.arrayContaining([...PROTOCOLS]));
  });

  it('passes credentials through the env-reading helper, never in argv or the URL', () => {
    const { clone } = git.cloneInvocations({
      url: 'https://urluser:urlpass@example.org/r.git',
      path: '/d',
      username: 'alice',
      password: 's3cret',
    });
    const argv = clone.argv.join('\n');
    expect(argv).not.toContain('s3cret');
    expect(argv).not.toContain('urlpass');
    expect(clone.argv).toContain('https://example.org/r.git');
    expect(clone.argv).toContain(`credential.helper=${CREDENTIAL_HELPER}`);
    expect(clone.env[PASSWORD_ENV]).toBe('s3cret');
    // Both the explicit and the URL's password are redacted from the output.
    expect(clone.secrets).toEqual(expect.arrayContaining(['s3cret', 'urlpass']));
  });

  it('uses credentials found in the URL when no explicit ones are given', () => {
    const { clone } = git.cloneInvocations({ url: 'https://bob:pw1@example.org/r.git', path: '/d' });
    expect(clone.env).toMatchObject({ SHOAL_GIT_USERNAME: 'bob', SHOAL_GIT_PASSWORD: 'pw1' });
    expect(clone.argv).not.toContain('https://bob:pw1@example.org/r.git');
  });

  it('treats null and "" as absent optional values', () => {
    const { clone, checkout } = git.cloneInvocations({
      url: 'https://example.org/r',
      path: '/d',
      branch: '',
      commit_id: null,
      depth: null,
      username: '',
      password: null,
    });
    expect(clone.argv).toEqual(['git', ...PROTOCOLS, 'clone', '--', 'https://example.org/r', '/d']);
    expect(checkout).toBeUndefined();
  });

  it('commits through a constant script with the message as one argument', () => {
    const invocation = git.commit(
      { path: 'r', message: '-m; rm -rf / $(id)', allow_empty: true, author: 'Ann' },
      'MARK:',
    );
    expect(invocation.argv.slice(0, 5)).toEqual(['sh', '-c', git.IDENTITY_SCRIPT, 'sh', '/workspace/r']);
    expect(invocation.argv.slice(5)).toEqual([
      '-C',
      '/workspace/r',
      'commit',
      '-m',
      '-m; rm -rf / $(id)',
      '--allow-empty',
    ]);
    expect(invocation.env).toMatchObject({ SHOAL_GIT_AUTHOR_NAME: 'Ann', SHOAL_SHA_MARK: 'MARK:' });
    expect(invocation.env).not.toHaveProperty('SHOAL_GIT_AUTHOR_EMAIL');
    expect(git.IDENTITY_SCRIPT).toContain('Shoal User');
    expect(git.IDENTITY_SCRIPT).toContain('user@sandbox.local');
  });

  it('extracts the sha behind the marker and removes that line', () => {
    const sha = 'a'.repeat(40);
    expect(git.extractSha(`[main 1234567] msg\nMARK:${sha}\n`, 'MARK:')).toEqual({
      sha,
      stdout: '[main 1234567] msg\n',
    });
    expect(git.extractSha('nothing to commit\n', 'MARK:')).toEqual({ sha: '', stdout: 'nothing to commit\n' });
    expect(git.extractSha('MARK:HEAD\n', 'MARK:').sha).toBe('');
  });

  it('lists branches by type with contains / no-contains as attached values', () => {
    expect(git.branches({ path: '/r' }).argv).toEqual(['git', '-C', '/r', 'branch']);
    expect(git.branches({ path: '/r', branch_type: 'remote' }).argv).toEqual([
      'git',
      '-C',
      '/r',
      'branch',
      '--remotes',
    ]);
    expect(git.branches({ path: '/r', branch_type: 'all', contains: 'abc', not_contains: 'def' }).argv).toEqual([
      'git',
      '-C',
      '/r',
      'branch',
      '--all',
      '--contains=abc',
      '--no-contains=def',
    ]);
  });

  it('reads diff targets and shown revisions as revisions, never paths', () => {
    expect(git.diff({ path: '/r', target: 'main' }).argv).toEqual([
      'git',
      '-C',
      '/r',
      'diff',
      '--unified=3',
      'main',
      '--',
    ]);
    expect(git.diff({ path: '/r', target: 'v1', context_lines: 0 }).argv).toContain('--unified=0');
    expect(git.diffUnstaged({ path: '/r', context_lines: 7 }).argv).toEqual(['git', '-C', '/r', 'diff', '--unified=7']);
    expect(git.diffStaged({ path: '/r' }).argv).toEqual(['git', '-C', '/r', 'diff', '--cached', '--unified=3']);
    expect(git.show({ path: '/r', revision: 'HEAD~1' }).argv).toEqual(['git', '-C', '/r', 'show', 'HEAD~1', '--']);
    expect(git.log({ path: '/r' }).argv).toEqual(['git', '-C', '/r', 'log', '--max-count=10', '--']);
  });

  it('checks out through a constant script with branch and create flag as arguments', () => {
    const invocation = git.checkoutBranch({ path: '/r', branch: 'feature; id', create: true });
    expect(invocation.argv).toEqual(['sh', '-c', git.CHECKOUT_SCRIPT, 'sh', '/r', 'feature; id', '1']);
    expect(git.checkoutBranch({ path: '/r', branch: 'b' }).argv.at(-1)).toBe('0');
  });

  it('creates and deletes branches', () => {
    expect(git.createBranch({ path: '/r', name: 'n' }).argv).toEqual(['git', '-C', '/r', 'branch', 'n']);
    expect(git.createBranch({ path: '/r', name: 'n', base_branch: 'main', checkout: true }).argv).toEqual([
      'git',
      '-C',
      '/r',
      'switch',
      '--create',
      'n',
      'main',
    ]);
    expect(git.deleteBranch({ path: '/r', name: 'n' }).argv).toEqual(['git', '-C', '/r', 'branch', '-d', '--', 'n']);
    expect(git.deleteBranch({ path: '/r', name: 'n', force: true }).argv).toContain('-D');
  });

  it('pushes and pulls with pinned transports, credentials, upstream and the default remote', () => {
    const pushed = git.push({ path: '/r', branch: 'main', set_upstream: true, password: 'tok' });
    expect(pushed.argv).toEqual(expect.arrayContaining([...PROTOCOLS]));
    expect(pushed.argv.slice(-5)).toEqual(['/r', 'push', '--set-upstream', 'origin', 'main']);
    expect(pushed.argv.join(' ')).not.toContain('tok');
    expect(pushed.network).toBe(true);
    expect(pushed.secrets).toContain('tok');
    expect(git.push({ path: '/r', remote: 'up' }).argv.slice(-2)).toEqual(['push', 'up']);
    const pulled = git.pull({ path: '/r', remote: 'up', branch: 'dev' });
    expect(pulled.argv.slice(0, 5)).toEqual(['sh', '-c', git.IDENTITY_SCRIPT, 'sh', '/r']);
    expect(pulled.argv.slice(-3)).toEqual(['pull', 'up', 'dev']);
    expect(pulled.network).toBe(true);
  });
});
