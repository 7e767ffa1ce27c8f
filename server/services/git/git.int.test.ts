import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { randomBytes } from 'node:crypto';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_NETWORK } from '../../runtime/docker/docker-runtime';
import type { GitCommitResult, GitResult } from '../../spec/git';
import { restoreRunning } from '../../testing/sandbox-fixture';
import { startShoal, type ShoalServer } from '../../testing/shoal-server';
import {
  createFixtureRepos,
  hostGit,
  startGitServer,
  startHangingServer,
  type FixtureRepos,
  type TestGitServer,
} from './test-git-server';

const docker = new Docker();
const USERNAME = 'tester';
const PASSWORD = `pw-${randomBytes(12).toString('hex')}`;
const WRONG_PASSWORD = `wrong-${randomBytes(12).toString('hex')}`;
/** Clone/push/pull limit of the test server: long enough for a local clone, short for the hang test. */
const NETWORK_LIMIT_MS = 8000;

/** Runs a command in the sandbox's container straight through Docker (to check what git left behind). */
async function inSandbox(sandboxId: string, argv: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  const [info] = await docker.listContainers({ filters: JSON.stringify({ label: [`shoal.sandbox=${sandboxId}`] }) });
  if (!info) throw new Error(`no container for ${sandboxId}`);
  const exec = await docker.getContainer(info.Id).exec({ Cmd: argv, AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({});
  const out = new PassThrough();
  const err = new PassThrough();
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  out.on('data', (chunk: Buffer) => stdout.push(chunk));
  err.on('data', (chunk: Buffer) => stderr.push(chunk));
  docker.modem.demuxStream(stream, out, err);
  await new Promise((resolve) => stream.on('end', resolve));
  const { ExitCode } = await exec.inspect();
  return { stdout: Buffer.concat(stdout).toString(), stderr: Buffer.concat(stderr).toString(), code: ExitCode ?? -1 };
}

describe('git routes against a real sandbox', () => {
  let shoal: ShoalServer;
  let sandboxId: string;
  let gitServer: TestGitServer;
  let hanging: { url: string; close(): Promise<void> };
  let fixture: FixtureRepos;
  let gatewayUrl: string;

  const git = async <T = GitResult>(name: string, body: Record<string, unknown>, id = sandboxId) => {
    const response = await shoal.request<T>('POST', `/v1/sandbox/${id}/git/${name}`, { body });
    return response;
  };
  /** A git route that must answer 200; returns its body. */
  const ok = async (name: string, body: Record<string, unknown>): Promise<GitResult> => {
    const response = await git(name, body);
    expect(response.status, response.text).toBe(200);
    return response.body;
  };
  const sh = async (script: string) => {
    const result = await inSandbox(sandboxId, ['sh', '-c', script]);
    return result.stdout.trim();
  };

  beforeAll(async () => {
    shoal = await startShoal({ env: { SHOAL_GIT_NETWORK_TIMEOUT_MS: String(NETWORK_LIMIT_MS) } });
    sandboxId = (await restoreRunning(shoal)).id;
    // The network exists once a sandbox was created; its gateway is the host as sandboxes see it.
    const network = await docker.getNetwork(SANDBOX_NETWORK).inspect();
    const gateway: string | undefined = network.IPAM?.Config?.[0]?.Gateway;
    if (!gateway) throw new Error(`network ${SANDBOX_NETWORK} has no gateway address`);
    fixture = createFixtureRepos();
    gitServer = await startGitServer(gateway, fixture.root, { username: USERNAME, password: PASSWORD });
    hanging = await startHangingServer(gateway);
    gatewayUrl = gitServer.url;
  });

  afterAll(async () => {
    await shoal?.stop();
    await gitServer?.close();
    await hanging?.close();
    if (fixture) fs.rmSync(fixture.root, { recursive: true, force: true });
  });

  describe('clone over smart HTTP', () => {
    it('clones a public repository into a relative path under /workspace', async () => {
      const result = await ok('clone', { url: `${gatewayUrl}/public.git`, path: 'public' });
      expect(result.exit_code).toBe(0);
      expect(result.output).toContain("Cloning into '/workspace/public'");
      expect(await sh('cat /workspace/public/README.md')).toBe('hello\nworld');
      const status = await ok('status', { path: 'public' });
      expect(status.output).toContain(`# branch.oid ${fixture.shas.c3}`);
      expect(status.output).toContain('# branch.head main');
      expect(status.output).toContain('# branch.upstream origin/main');
      expect(status.output).toContain('# branch.ab +0 -0');
    });

    it('makes a shallow clone with depth', async () => {
      const result = await ok('clone', { url: `${gatewayUrl}/public.git`, path: '/workspace/shallow', depth: 1 });
      expect(result.exit_code).toBe(0);
      expect(await sh('git -C /workspace/shallow rev-parse --is-shallow-repository')).toBe('true');
      const log = await ok('log', { path: '/workspace/shallow' });
      expect(log.output.match(/^commit [0-9a-f]{40}/gm)).toHaveLength(1);
      // The full clone is not shallow and has the whole history.
      expect(await sh('git -C /workspace/public rev-parse --is-shallow-repository')).toBe('false');
    });

    it('clones a branch', async () => {
      const result = await ok('clone', { url: `${gatewayUrl}/public.git`, path: 'dev-clone', branch: 'dev' });
      expect(result.exit_code).toBe(0);
      expect(await sh('git -C /workspace/dev-clone rev-parse HEAD')).toBe(fixture.shas.d1);
      expect(await sh('git -C /workspace/dev-clone symbolic-ref --short HEAD')).toBe('dev');
    });

    it('checks out commit_id after cloning, also one missing from a shallow clone', async () => {
      const full = await ok('clone', { url: `${gatewayUrl}/public.git`, path: 'at-c2', commit_id: fixture.shas.c2 });
      expect(full.exit_code).toBe(0);
      expect(await sh('git -C /workspace/at-c2 rev-parse HEAD')).toBe(fixture.shas.c2);
      const shallow = await ok('clone', {
        url: `${gatewayUrl}/public.git`,
        path: 'at-c1',
        commit_id: fixture.shas.c1,
        depth: 1,
      });
      expect(shallow.exit_code, shallow.output).toBe(0);
      expect(await sh('git -C /workspace/at-c1 rev-parse HEAD')).toBe(fixture.shas.c1);
    });

    it('reports git’s failure for an unknown commit_id with a non-zero exit code', async () => {
      const result = await ok('clone', {
        url: `${gatewayUrl}/public.git`,
        path: 'bad-commit',
        commit_id: 'f'.repeat(40),
      });
      expect(result.exit_code).not.toBe(0);
      expect(result.output).toMatch(/fatal|error/);
    });

    it('fails without credentials on a private repository instead of waiting on a prompt', async () => {
      const result = await ok('clone', { url: `${gatewayUrl}/private.git`, path: 'no-creds' });
      expect(result.exit_code).not.toBe(0);
      expect(result.output).toMatch(/terminal prompts disabled|Authentication failed|could not read/);
    });

    it('fails with wrong credentials and never shows the password', async () => {
      const refusedBefore = gitServer.authAttempts.refused;
      const result = await ok('clone', {
        url: `${gatewayUrl}/private.git`,
        path: 'wrong-creds',
        username: USERNAME,
        password: WRONG_PASSWORD,
      });
      expect(result.exit_code).not.toBe(0);
      expect(result.output).toMatch(/Authentication failed/);
      expect(result.output).not.toContain(WRONG_PASSWORD);
      // The helper did hand the (wrong) password to git: the server saw and refused it.
      expect(gitServer.authAttempts.refused).toBeGreaterThan(refusedBefore);
    });

    it('clones with the right credentials and leaves them nowhere', async () => {
      const result = await ok('clone', {
        url: `${gatewayUrl}/private.git`,
        path: 'private',
        username: USERNAME,
        password: PASSWORD,
      });
      expect(result.exit_code, result.output).toBe(0);
      expect(JSON.stringify(result)).not.toContain(PASSWORD);
      const config = await sh('cat /workspace/private/.git/config');
      expect(config).toContain('[remote "origin"]');
      expect(config).not.toContain(PASSWORD);
      expect(config).not.toContain('credential');
      expect(await sh('git -C /workspace/private remote get-url origin')).toBe(`${gatewayUrl}/private.git`);
      // Nothing was stored for later either: no credential files, and a pull without credentials fails.
      expect(await sh(`grep -rl -- '${PASSWORD}' /root /workspace/private/.git /etc 2>/dev/null; true`)).toBe('');
      const pull = await ok('pull', { path: 'private' });
      expect(pull.exit_code).not.toBe(0);
    });

    it('moves credentials embedded in the URL into the helper', async () => {
      const result = await ok('clone', {
        url: `${gatewayUrl.replace('http://', `http://${USERNAME}:${PASSWORD}@`)}/private.git`,
        path: 'private-url-creds',
      });
      expect(result.exit_code, result.output).toBe(0);
      expect(result.output).not.toContain(PASSWORD);
      expect(await sh('cat /workspace/private-url-creds/.git/config')).not.toContain(PASSWORD);
      expect(await sh('git -C /workspace/private-url-creds remote get-url origin')).toBe(`${gatewayUrl}/private.git`);
    });

    it('refuses ext::, file:// and local-path URLs with 400 before anything runs', async () => {
      for (const url of ['ext::sh -c touch% /tmp/pwned-by-ext', 'file:///workspace/public', '/workspace/public']) {
        const response = await git<{ errors: { field: string }[] }>('clone', { url, path: 'refused' });
        expect(response.status, url).toBe(400);
        expect(response.body.errors.map((e) => e.field)).toEqual(['url']);
      }
      expect(await sh('ls /tmp/pwned-by-ext /workspace/refused 2>&1; true')).toMatch(/No such file/);
    });

    it('refuses a transport outside the four even when a repository is configured with it (protocol.allow)', async () => {
      // A submodule pointing at a file:// URL: the pinned protocols make git refuse it.
      await sh(
        [
          'set -e',
          'rm -rf /tmp/sub /tmp/super && git init -q /tmp/sub && git -C /tmp/sub -c user.name=a -c user.email=a@b commit -q --allow-empty -m s',
          'git init -q /tmp/super',
          'git -C /tmp/super -c protocol.file.allow=always submodule -q add file:///tmp/sub sub',
        ].join(' && '),
      );
      const result = await ok('pull', { path: '/tmp/super/sub', remote: 'origin' });
      expect(result.exit_code).not.toBe(0);
      expect(result.output).toMatch(/transport 'file' not allowed/);
    });

    it('kills a clone that hangs after the time limit and reports a non-zero exit code', async () => {
      const result = await ok('clone', { url: `${hanging.url}/hang.git`, path: 'hang' });
      expect(result.exit_code).not.toBe(0);
      expect(result.output).toMatch(/timed out/);
      // The whole process group was killed (the pattern does not match this shell's own command line).
      expect(await sh("pgrep -f 'remote-htt[p]' || echo none")).toBe('none');
    });
  });

  describe('local repository operations', () => {
    const repo = '/workspace/public';

    it('shows unstaged, staged and target diffs with the context lines asked for', async () => {
      await sh(`printf 'one\\nTWO\\nthree\\n' > ${repo}/notes.txt`);
      const status = await ok('status', { path: repo });
      expect(status.output).toMatch(/^1 \.M N\.\.\. \d+ \d+ \d+ [0-9a-f]+ [0-9a-f]+ notes\.txt$/m);

      const unstaged = await ok('diff-unstaged', { path: repo });
      expect(unstaged.exit_code).toBe(0);
      expect(unstaged.output).toContain('-two\n+TWO');
      expect(unstaged.output).toMatch(/^ one$/m);
      const noContext = await ok('diff-unstaged', { path: repo, context_lines: 0 });
      expect(noContext.output).toContain('@@ -2 +2 @@');
      expect(noContext.output).not.toMatch(/^ one$/m);

      expect((await ok('diff-staged', { path: repo })).output).toBe('');
      const added = await ok('add', { path: repo, files: ['notes.txt'] });
      expect(added.exit_code).toBe(0);
      expect((await ok('status', { path: repo })).output).toMatch(/^1 M\. /m);
      expect((await ok('diff-staged', { path: repo })).output).toContain('+TWO');
      expect((await ok('diff-unstaged', { path: repo })).output).toBe('');

      const vsC1 = await ok('diff', { path: repo, target: fixture.shas.c1 });
      expect(vsC1.output).toContain('+world');
      expect(vsC1.output).toContain('+TWO');
    });

    it('unstages one file or everything with reset', async () => {
      await sh(`echo extra > ${repo}/extra.txt`);
      await ok('add', { path: repo, files: ['extra.txt', 'notes.txt'] });
      const one = await ok('reset', { path: repo, files: ['extra.txt'] });
      expect(one.exit_code).toBe(0);
      let status = (await ok('status', { path: repo })).output;
      expect(status).toMatch(/^1 M\. .* notes\.txt$/m);
      expect(status).toMatch(/^\? extra\.txt$/m);
      const all = await ok('reset', { path: repo });
      expect(all.exit_code).toBe(0);
      status = (await ok('status', { path: repo })).output;
      expect(status).toMatch(/^1 \.M .* notes\.txt$/m);
      await sh(`rm ${repo}/extra.txt`);
    });

    it('commits with the default identity and returns the new HEAD', async () => {
      await ok('add', { path: repo, files: ['notes.txt'] });
      const response = await git<GitCommitResult>('commit', { path: repo, message: 'shout two' });
      expect(response.status).toBe(200);
      expect(response.body.result.exit_code).toBe(0);
      expect(response.body.sha).toMatch(/^[0-9a-f]{40}$/);
      expect(response.body.sha).toBe(await sh(`git -C ${repo} rev-parse HEAD`));
      expect(response.body.result.output).toContain('shout two');
      expect(response.body.result.output).not.toContain('shoal-sha-');
      expect(await sh(`git -C ${repo} log -1 --format='%an <%ae>|%cn <%ce>'`)).toBe(
        'Shoal User <user@sandbox.local>|Shoal User <user@sandbox.local>',
      );
    });

    it('commits with the given author and email, and allows an empty commit only when asked', async () => {
      const refused = await git<GitCommitResult>('commit', { path: repo, message: 'empty' });
      expect(refused.status).toBe(200);
      expect(refused.body.sha).toBe('');
      expect(refused.body.result.exit_code).not.toBe(0);
      expect(refused.body.result.output).toMatch(/nothing to commit/);

      const response = await git<GitCommitResult>('commit', {
        path: repo,
        message: 'empty on purpose',
        author: 'Ada Lovelace',
        email: 'ada@example.org',
        allow_empty: true,
      });
      expect(response.body.result.exit_code).toBe(0);
      expect(response.body.sha).toBe(await sh(`git -C ${repo} rev-parse HEAD`));
      expect(await sh(`git -C ${repo} log -1 --format='%an <%ae>'`)).toBe('Ada Lovelace <ada@example.org>');
    });

    it('uses the configured identity over the default', async () => {
      await sh(
        `git -C ${repo} config user.name 'Configured Person' && git -C ${repo} config user.email cp@example.org`,
      );
      const response = await git<GitCommitResult>('commit', { path: repo, message: 'configured', allow_empty: true });
      expect(response.body.result.exit_code).toBe(0);
      expect(await sh(`git -C ${repo} log -1 --format='%an <%ae>'`)).toBe('Configured Person <cp@example.org>');
      await sh(`git -C ${repo} config --unset user.name && git -C ${repo} config --unset user.email`);
    });

    it('shows a revision and the log', async () => {
      const shown = await ok('show', { path: repo, revision: fixture.shas.c2 });
      expect(shown.output).toContain(`commit ${fixture.shas.c2}`);
      expect(shown.output).toContain('+world');
      const log = await ok('log', { path: repo, max_count: 2 });
      expect(log.output.match(/^commit /gm)).toHaveLength(2);
      expect(log.output).toContain('configured');
    });

    it('lists local, remote and all branches, filtered by contains / not_contains', async () => {
      const local = await ok('branches', { path: repo });
      expect(local.output).toBe('* main\n');
      const remote = await ok('branches', { path: repo, branch_type: 'remote' });
      expect(remote.output).toContain('origin/dev');
      expect(remote.output).toContain('origin/main');
      expect(remote.output).not.toContain('* main');
      const all = await ok('branches', { path: repo, branch_type: 'all' });
      expect(all.output).toContain('* main');
      expect(all.output).toContain('remotes/origin/dev');
      const containsD1 = await ok('branches', { path: repo, branch_type: 'all', contains: fixture.shas.d1 });
      expect(containsD1.output.trim()).toBe('remotes/origin/dev');
      const notD1 = await ok('branches', { path: repo, branch_type: 'remote', not_contains: fixture.shas.d1 });
      expect(notD1.output).toContain('origin/main');
      expect(notD1.output).not.toContain('origin/dev');
      const bad = await git<{ errors: { field: string }[] }>('branches', { path: repo, branch_type: 'tags' });
      expect(bad.status).toBe(400);
      expect(bad.body.errors.map((e) => e.field)).toEqual(['branch_type']);
    });

    it('checks out existing branches, tracks remote ones, and creates only when asked', async () => {
      const tracked = await ok('checkout-branch', { path: repo, branch: 'dev' });
      expect(tracked.exit_code, tracked.output).toBe(0);
      expect(await sh(`git -C ${repo} rev-parse HEAD`)).toBe(fixture.shas.d1);
      const missing = await ok('checkout-branch', { path: repo, branch: 'topic' });
      expect(missing.exit_code).not.toBe(0);
      const created = await ok('checkout-branch', { path: repo, branch: 'topic', create: true });
      expect(created.exit_code).toBe(0);
      expect(await sh(`git -C ${repo} symbolic-ref --short HEAD`)).toBe('topic');
      const again = await ok('checkout-branch', { path: repo, branch: 'main', create: true });
      expect(again.exit_code).toBe(0);
      expect(await sh(`git -C ${repo} symbolic-ref --short HEAD`)).toBe('main');
      // A name that is a file but no branch fails; it never restores (discards changes to) the file.
      await sh(`echo dirty >> ${repo}/README.md`);
      const fileLike = await ok('checkout-branch', { path: repo, branch: 'README.md' });
      expect(fileLike.exit_code).not.toBe(0);
      expect(await sh(`tail -1 ${repo}/README.md`)).toBe('dirty');
      await sh(`git -C ${repo} checkout -q -- README.md`);
    });

    it('creates and deletes branches', async () => {
      const created = await ok('create-branch', { path: repo, name: 'from-c1', base_branch: fixture.shas.c1 });
      expect(created.exit_code).toBe(0);
      expect(await sh(`git -C ${repo} rev-parse from-c1`)).toBe(fixture.shas.c1);
      expect(await sh(`git -C ${repo} symbolic-ref --short HEAD`)).toBe('main');
      const switched = await ok('create-branch', { path: repo, name: 'work', checkout: true });
      expect(switched.exit_code).toBe(0);
      expect(await sh(`git -C ${repo} symbolic-ref --short HEAD`)).toBe('work');
      await ok('checkout-branch', { path: repo, branch: 'main' });
      await ok('commit', { path: repo, message: 'only on unmerged', allow_empty: true });
      await sh(`git -C ${repo} branch -f unmerged HEAD && git -C ${repo} reset -q --hard HEAD~1`);
      const refused = await ok('delete-branch', { path: repo, name: 'unmerged' });
      expect(refused.exit_code).not.toBe(0);
      expect(refused.output).toMatch(/not fully merged/);
      const forced = await ok('delete-branch', { path: repo, name: 'unmerged', force: true });
      expect(forced.exit_code).toBe(0);
      expect(await sh(`git -C ${repo} branch --list unmerged`)).toBe('');
    });

    it('answers 200 with git’s own error for a path that is not a repository', async () => {
      const missing = await ok('status', { path: '/workspace/does-not-exist' });
      expect(missing.exit_code).not.toBe(0);
      expect(missing.output).toMatch(/cannot change to '\/workspace\/does-not-exist'/);
      const notRepo = await ok('log', { path: '/tmp' });
      expect(notRepo.exit_code).not.toBe(0);
      expect(notRepo.output).toMatch(/not a git repository/);
    });
  });

  describe('push and pull with credentials', () => {
    const repo = '/workspace/private';

    it('pushes a new branch with set_upstream to the test server', async () => {
      await ok('checkout-branch', { path: repo, branch: 'feature', create: true });
      await sh(`echo pushed > ${repo}/pushed.txt`);
      await ok('add', { path: repo, files: ['pushed.txt'] });
      const commit = await git<GitCommitResult>('commit', { path: repo, message: 'pushed from sandbox' });
      expect(commit.body.sha).toMatch(/^[0-9a-f]{40}$/);

      const anonymous = await ok('push', { path: repo, remote: 'origin', branch: 'feature' });
      expect(anonymous.exit_code).not.toBe(0);

      const pushed = await ok('push', {
        path: repo,
        remote: 'origin',
        branch: 'feature',
        set_upstream: true,
        username: USERNAME,
        password: PASSWORD,
      });
      expect(pushed.exit_code, pushed.output).toBe(0);
      expect(pushed.output).not.toContain(PASSWORD);
      expect(hostGit(fixture.root, ['--git-dir', path.join(fixture.root, 'private.git'), 'rev-parse', 'feature'])).toBe(
        commit.body.sha,
      );
      expect(await sh(`git -C ${repo} rev-parse --abbrev-ref feature@{upstream}`)).toBe('origin/feature');
      expect(await sh(`cat ${repo}/.git/config`)).not.toContain(PASSWORD);
    });

    it('pulls a commit pushed from elsewhere', async () => {
      hostGit(fixture.hostClone, ['fetch', '-q', 'origin']);
      hostGit(fixture.hostClone, ['checkout', '-q', '-b', 'feature', 'origin/feature']);
      fs.writeFileSync(path.join(fixture.hostClone, 'from-host.txt'), 'host\n');
      hostGit(fixture.hostClone, ['add', '--', 'from-host.txt']);
      hostGit(fixture.hostClone, ['commit', '-q', '-m', 'from host']);
      hostGit(fixture.hostClone, ['push', '-q', 'origin', 'feature']);
      const hostSha = hostGit(fixture.hostClone, ['rev-parse', 'HEAD']);

      const wrong = await ok('pull', { path: repo, username: USERNAME, password: WRONG_PASSWORD });
      expect(wrong.exit_code).not.toBe(0);
      expect(wrong.output).not.toContain(WRONG_PASSWORD);

      const pulled = await ok('pull', {
        path: repo,
        remote: 'origin',
        branch: 'feature',
        username: USERNAME,
        password: PASSWORD,
      });
      expect(pulled.exit_code, pulled.output).toBe(0);
      expect(pulled.output).toContain('from-host.txt');
      expect(pulled.output).not.toContain(PASSWORD);
      expect(await sh(`git -C ${repo} rev-parse HEAD`)).toBe(hostSha);
      expect(await sh(`cat ${repo}/from-host.txt`)).toBe('host');
    });
  });

  describe('request validation and errors', () => {
    it('refuses every ref-like value starting with "-" with 400 naming the field', async () => {
      const cases: [string, Record<string, unknown>, string][] = [
        ['clone', { url: `${gatewayUrl}/public.git`, path: 'x', branch: '--upload-pack=touch /tmp/p' }, 'branch'],
        ['clone', { url: `${gatewayUrl}/public.git`, path: 'x', commit_id: '-p' }, 'commit_id'],
        ['checkout-branch', { path: 'public', branch: '--orphan=x' }, 'branch'],
        ['diff', { path: 'public', target: '--output=/tmp/owned' }, 'target'],
        ['branches', { path: 'public', contains: '-r' }, 'contains'],
        ['branches', { path: 'public', not_contains: '-r' }, 'not_contains'],
        ['show', { path: 'public', revision: '--output=/tmp/owned' }, 'revision'],
        ['create-branch', { path: 'public', name: '-f' }, 'name'],
        ['create-branch', { path: 'public', name: 'ok', base_branch: '-x' }, 'base_branch'],
        ['delete-branch', { path: 'public', name: '-D' }, 'name'],
        ['push', { path: 'public', remote: '--receive-pack=touch /tmp/p' }, 'remote'],
        ['pull', { path: 'public', branch: '--upload-pack=x' }, 'branch'],
      ];
      for (const [name, body, field] of cases) {
        const response = await git<{ message: string; errors: { field: string }[] }>(name, body);
        expect(response.status, `${name} ${field}`).toBe(400);
        expect(response.body.message).toBe('Invalid request');
        expect(response.body.errors.map((e) => e.field)).toEqual([field]);
      }
      expect(await sh('ls /tmp/owned /tmp/p 2>&1; true')).toMatch(/No such file/);
    });

    it('treats files starting with "-" as paths, not options', async () => {
      await sh('echo x > /workspace/public/-f');
      const added = await ok('add', { path: 'public', files: ['-f'] });
      expect(added.exit_code).toBe(0);
      expect((await ok('status', { path: 'public' })).output).toMatch(/^1 A\. .* -f$/m);
      await ok('reset', { path: 'public', files: ['-f'] });
      await sh('rm /workspace/public/-f');
    });

    it('validates numbers: context_lines ≥ 0, depth ≥ 1, whole numbers only', async () => {
      for (const [name, body, field] of [
        ['diff-unstaged', { path: 'public', context_lines: -1 }, 'context_lines'],
        ['diff-staged', { path: 'public', context_lines: 1.5 }, 'context_lines'],
        ['clone', { url: `${gatewayUrl}/public.git`, path: 'x', depth: 0 }, 'depth'],
        ['log', { path: 'public', max_count: 0 }, 'max_count'],
        ['add', { path: 'public', files: [] }, 'files'],
        ['status', {}, 'path'],
      ] as [string, Record<string, unknown>, string][]) {
        const response = await git<{ errors: { field: string }[] }>(name, body);
        expect(response.status, name).toBe(400);
        expect(response.body.errors.map((e) => e.field)).toEqual([field]);
      }
    });

    it('answers 404 for an unknown sandbox and 401 without a key', async () => {
      const unknown = await git('status', { path: 'public' }, 'sbx-doesnotexist');
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ message: "Sandbox 'sbx-doesnotexist' not found" });
      const anonymous = await shoal.request('POST', `/v1/sandbox/${sandboxId}/git/status`, {
        body: { path: 'public' },
        auth: false,
      });
      expect(anonymous.status).toBe(401);
    });

    it('is served under /api/v1 too and lists every git route in the OpenAPI document', async () => {
      const response = await shoal.request<GitResult>('POST', `/api/v1/sandbox/${sandboxId}/git/status/`, {
        body: { path: 'public' },
      });
      expect(response.status).toBe(200);
      expect(response.body.output).toContain('# branch.head');
      const doc = await shoal.request<{ paths: Record<string, unknown> }>('GET', '/v1/openapi.json');
      for (const name of ['clone', 'add', 'reset', 'commit', 'branches', 'checkout-branch', 'status', 'diff']) {
        expect(doc.body.paths).toHaveProperty([`/v1/sandbox/{sandboxID}/git/${name}`]);
      }
      for (const name of [
        'diff-unstaged',
        'diff-staged',
        'log',
        'show',
        'create-branch',
        'delete-branch',
        'push',
        'pull',
      ]) {
        expect(doc.body.paths).toHaveProperty([`/v1/sandbox/{sandboxID}/git/${name}`]);
      }
    });

    it('never wrote a clone password into the server log', () => {
      expect(shoal.output()).not.toContain(PASSWORD);
      expect(shoal.output()).not.toContain(WRONG_PASSWORD);
    });
  });
});
