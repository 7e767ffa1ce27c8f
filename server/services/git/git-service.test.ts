import { describe, expect, it } from 'vitest';
import type { ExecOptions, ExecResult, SandboxRuntime } from '../../runtime/types';
import { fakeExecRuntime } from '../../testing/fake-runtime';
import { GitService, gitLimitsFromEnv, presentRun, type GitLimits } from './git-service';
import { status } from './argv';

/** A runtime that records exec calls and answers from a script. */
function fakeRuntime(answer: (argv: string[], options: ExecOptions) => Partial<ExecResult>) {
  return fakeExecRuntime((call) => answer(call.argv, call.options));
}

const limits: GitLimits = { timeoutMs: 60_000, networkTimeoutMs: 600_000, maxOutputBytes: 1024 };

function service(runtime: SandboxRuntime, readyCalls: string[] = []) {
  return new GitService(
    {
      async ready(teamId, sandboxId) {
        readyCalls.push(`${teamId}/${sandboxId}`);
        return { container_id: `ctr-${sandboxId}` };
      },
      touchById: () => undefined,
    },
    runtime,
    limits,
  );
}

describe('GitService', () => {
  it('asks the sandbox service first and runs git in that container with the short limit', async () => {
    const { runtime, calls } = fakeRuntime(() => ({ stdout: Buffer.from('# branch.head main\n') }));
    const ready: string[] = [];
    const result = await service(runtime, ready).run('team1', 'sbx-1', status({ path: 'repo' }));
    expect(ready).toEqual(['team1/sbx-1']);
    expect(calls[0].containerId).toBe('ctr-sbx-1');
    expect(calls[0].options.timeoutMs).toBe(60_000);
    expect(calls[0].options.env?.GIT_TERMINAL_PROMPT).toBe('0');
    expect(result).toEqual({ output: '# branch.head main\n', exit_code: 0 });
  });

  it('returns stdout then stderr, and git’s failure as a result', async () => {
    const { runtime } = fakeRuntime(() => ({
      stdout: Buffer.from('out'),
      stderr: Buffer.from('fatal: not a git repository\n'),
      exitCode: 128,
    }));
    expect(await service(runtime).run('t', 's', status({ path: 'x' }))).toEqual({
      output: 'out\nfatal: not a git repository\n',
      exit_code: 128,
    });
  });

  it('uses the long limit for clone and redacts the password from its output', async () => {
    const { runtime, calls } = fakeRuntime(() => ({
      stderr: Buffer.from("fatal: Authentication failed for 'https://alice:pa55word@h/r' (pa55word)\n"),
      exitCode: 128,
    }));
    const result = await service(runtime).clone('t', 's', {
      url: 'https://h/r',
      path: 'r',
      username: 'alice',
      password: 'pa55word',
      commit_id: 'abc',
    });
    expect(calls).toHaveLength(1); // no checkout after a failed clone
    expect(calls[0].options.timeoutMs).toBe(600_000);
    expect(result.exit_code).toBe(128);
    expect(result.output).not.toContain('pa55word');
    expect(result.output).toContain('***');
  });

  it('checks out commit_id after a clone, and fetches it when a shallow clone lacks it', async () => {
    let checkouts = 0;
    const { runtime, calls } = fakeRuntime((argv) => {
      if (argv.includes('checkout')) {
        checkouts++;
        return checkouts === 1 ? { exitCode: 128, stderr: Buffer.from('fatal: reference is not a tree\n') } : {};
      }
      return { stderr: Buffer.from(argv.includes('clone') ? 'Cloning...\n' : 'fetched\n') };
    });
    const result = await service(runtime).clone('t', 's', {
      url: 'https://h/r',
      path: 'r',
      commit_id: 'abc',
      depth: 1,
    });
    expect(calls.map((call) => call.argv.find((a) => ['clone', 'checkout', 'fetch'].includes(a)))).toEqual([
      'clone',
      'checkout',
      'fetch',
      'checkout',
    ]);
    expect(result).toEqual({ output: 'Cloning...\nfetched\n', exit_code: 0 });
  });

  it('reports the new HEAD of a commit, and "" when the commit failed', async () => {
    const sha = 'b'.repeat(40);
    const ok = fakeRuntime((_argv, options) => ({
      stdout: Buffer.from(`[main ${sha.slice(0, 7)}] msg\n${options.env?.SHOAL_SHA_MARK}${sha}\n`),
    }));
    expect(await service(ok.runtime).commit('t', 's', { path: 'r', message: 'msg' })).toEqual({
      sha,
      result: { output: `[main bbbbbbb] msg\n`, exit_code: 0 },
    });
    const failed = fakeRuntime(() => ({ stdout: Buffer.from('nothing to commit, working tree clean\n'), exitCode: 1 }));
    expect(await service(failed.runtime).commit('t', 's', { path: 'r', message: 'msg' })).toEqual({
      sha: '',
      result: { output: 'nothing to commit, working tree clean\n', exit_code: 1 },
    });
  });

  it('uses a fresh random marker per commit', async () => {
    const marks: string[] = [];
    const { runtime } = fakeRuntime((_argv, options) => {
      marks.push(options.env!.SHOAL_SHA_MARK);
      return {};
    });
    await service(runtime).commit('t', 's', { path: 'r', message: 'a' });
    await service(runtime).commit('t', 's', { path: 'r', message: 'b' });
    expect(marks[0]).not.toBe(marks[1]);
    expect(marks[0]).toMatch(/^shoal-sha-[0-9a-f]{24}:$/);
  });
});

describe('presentRun', () => {
  it('says that git was killed and keeps a non-zero exit code', () => {
    const result = presentRun(
      { stdout: '', stderr: 'Cloning into x...\n', exitCode: 124, timedOut: true, truncated: false, limitMs: 5000 },
      [],
    );
    expect(result.exit_code).toBe(124);
    expect(result.output).toBe('Cloning into x...\ngit timed out: killed after the 5 s limit\n');
  });

  it('notes a truncated output', () => {
    const result = presentRun(
      { stdout: 'abc', stderr: '', exitCode: 0, timedOut: false, truncated: true, limitMs: 1000 },
      [],
    );
    expect(result.output).toMatch(/^abc\n\[output truncated at \d+ bytes\]\n$/);
  });
});

describe('gitLimitsFromEnv', () => {
  it('defaults to 60 s and 10 min and accepts overrides', () => {
    expect(gitLimitsFromEnv({})).toMatchObject({ timeoutMs: 60_000, networkTimeoutMs: 600_000 });
    expect(gitLimitsFromEnv({ SHOAL_GIT_TIMEOUT_MS: '1500', SHOAL_GIT_NETWORK_TIMEOUT_MS: '3000' })).toMatchObject({
      timeoutMs: 1500,
      networkTimeoutMs: 3000,
    });
    expect(() => gitLimitsFromEnv({ SHOAL_GIT_TIMEOUT_MS: 'soon' })).toThrow(/SHOAL_GIT_TIMEOUT_MS/);
  });
});
