import { describe, expect, it } from 'vitest';
import { validate } from '../http/validation';
import {
  gitBranchesBody,
  gitCheckoutBody,
  gitCloneBody,
  gitCreateBranchBody,
  gitDeleteBranchBody,
  gitDiffBody,
  gitRemoteBody,
  gitShowBody,
  gitWorktreeDiffBody,
} from './git';

function fields(schema: Parameters<typeof validate>[0], body: unknown): string[] {
  try {
    validate(schema, body);
    return [];
  } catch (error) {
    return (error as { errors: { field: string }[] }).errors.map((e) => e.field).sort();
  }
}

describe('git request schemas', () => {
  it('refuses every ref-like value starting with "-", naming the field', () => {
    expect(fields(gitCheckoutBody, { path: 'r', branch: '--orphan' })).toEqual(['branch']);
    expect(fields(gitDiffBody, { path: 'r', target: '--output=/etc/x' })).toEqual(['target']);
    expect(fields(gitBranchesBody, { path: 'r', contains: '-x', not_contains: '-y' })).toEqual([
      'contains',
      'not_contains',
    ]);
    expect(fields(gitShowBody, { path: 'r', revision: '-p' })).toEqual(['revision']);
    expect(fields(gitCreateBranchBody, { path: 'r', name: '-f', base_branch: '-b' })).toEqual(['base_branch', 'name']);
    expect(fields(gitDeleteBranchBody, { path: 'r', name: '-D' })).toEqual(['name']);
    expect(fields(gitRemoteBody, { path: 'r', remote: '--receive-pack=x', branch: '-b' })).toEqual([
      'branch',
      'remote',
    ]);
    expect(fields(gitCloneBody, { url: 'https://h/r', path: 'd', branch: '-u', commit_id: '--x' })).toEqual([
      'branch',
      'commit_id',
    ]);
  });

  it('accepts ordinary refs, and null or "" for optional ones', () => {
    expect(fields(gitCheckoutBody, { path: 'r', branch: 'feature/x-1' })).toEqual([]);
    expect(fields(gitRemoteBody, { path: 'r', remote: null, branch: '' })).toEqual([]);
    expect(fields(gitDiffBody, { path: 'r', target: '' })).toEqual(['target']);
  });

  it('limits branch_type to local, remote and all', () => {
    for (const branch_type of ['local', 'remote', 'all'])
      expect(fields(gitBranchesBody, { path: 'r', branch_type })).toEqual([]);
    expect(fields(gitBranchesBody, { path: 'r', branch_type: 'tags' })).toEqual(['branch_type']);
  });

  it('requires whole non-negative context lines and a positive depth', () => {
    expect(fields(gitWorktreeDiffBody, { path: 'r', context_lines: 0 })).toEqual([]);
    expect(fields(gitWorktreeDiffBody, { path: 'r', context_lines: -1 })).toEqual(['context_lines']);
    expect(fields(gitWorktreeDiffBody, { path: 'r', context_lines: 1.5 })).toEqual(['context_lines']);
    expect(fields(gitCloneBody, { url: 'https://h/r', path: 'd', depth: 0 })).toEqual(['depth']);
    expect(fields(gitCloneBody, { url: 'https://h/r', path: 'd', depth: '1' })).toEqual(['depth']);
  });

  it('refuses clone URLs outside the policy as field url', () => {
    for (const url of ['ext::sh -c id', 'file:///etc', '/srv/repo.git']) {
      expect(fields(gitCloneBody, { url, path: 'd' })).toEqual(['url']);
    }
  });

  it('refuses credentials with line breaks (they would corrupt the helper protocol)', () => {
    expect(fields(gitCloneBody, { url: 'https://h/r', path: 'd', password: 'a\nb', username: 'u\r' })).toEqual([
      'password',
      'username',
    ]);
  });

  it('ignores unknown fields', () => {
    expect(validate(gitShowBody, { path: 'r', revision: 'HEAD', extra: 1 })).toEqual({ path: 'r', revision: 'HEAD' });
  });
});
