import path from 'node:path';
import type {
  GitAddBody,
  GitBranchesBody,
  GitCheckoutBody,
  GitCloneBody,
  GitCommitBody,
  GitCreateBranchBody,
  GitDeleteBranchBody,
  GitDiffBody,
  GitLogBody,
  GitPathBody,
  GitRemoteBody,
  GitResetBody,
  GitShowBody,
  GitWorktreeDiffBody,
} from '../../spec/git';
import { credentialArgs, type GitCredentials } from './credentials';
import { checkCloneUrl } from './url-policy';

/**
 * Pure builders: request body → the argv (and environment) of one exec inside the sandbox. Never
 * a shell string. Where a step needs a tiny bit of logic in the sandbox (a default identity, "create
 * the branch unless it exists"), the script is a constant and every user value is a positional
 * argument ("$1", "$@"), so it is never parsed by the shell.
 */
export interface GitInvocation {
  argv: string[];
  env: Record<string, string>;
  /** clone, push and pull: the long time limit. */
  network: boolean;
  /** Text to redact from the output (credentials). */
  secrets: string[];
}

/** Relative repository paths resolve against the sandbox work dir. */
export const WORKDIR = '/workspace';
export const DEFAULT_AUTHOR = 'Shoal User';
export const DEFAULT_EMAIL = 'user@sandbox.local';
export const DEFAULT_CONTEXT_LINES = 3;
export const DEFAULT_LOG_COUNT = 10;
export const DEFAULT_REMOTE = 'origin';

/** Environment of every git exec: never wait on a prompt, a pager or an editor. */
export const BASE_ENV: Readonly<Record<string, string>> = {
  GIT_TERMINAL_PROMPT: '0',
  GIT_PAGER: 'cat',
  PAGER: 'cat',
  GIT_EDITOR: 'true',
  GIT_TRACE_REDACT: '1',
};

/**
 * Network operations may only use these transports, also through redirects and submodules;
 * `file` and `ext` are refused even if the sandbox's own config allows them.
 */
export const PROTOCOL_ARGS: readonly string[] = [
  '-c',
  'protocol.allow=never',
  '-c',
  'protocol.https.allow=always',
  '-c',
  'protocol.http.allow=always',
  '-c',
  'protocol.ssh.allow=always',
  '-c',
  'protocol.git.allow=always',
  '-c',
  'protocol.file.allow=never',
  '-c',
  'protocol.ext.allow=never',
];

export function resolveRepoPath(repoPath: string): string {
  return path.posix.resolve(WORKDIR, repoPath);
}

/** `null`/`""` mean "absent" for optional values. */
function given<T>(value: T | null | undefined): value is T {
  return value !== null && value !== undefined && value !== '';
}

function local(repoPath: string, args: string[]): GitInvocation {
  return { argv: ['git', '-C', resolveRepoPath(repoPath), ...args], env: { ...BASE_ENV }, network: false, secrets: [] };
}

/**
 * Runs git with an identity: the client's author/email when given, else the repository's or
 * global config, else `Shoal User <user@sandbox.local>`. With SHOAL_SHA_MARK set it prints the new
 * HEAD after a successful run on a line starting with that (random) marker.
 * $1: repository directory; the remaining arguments: git's argv without "git".
 */
export const IDENTITY_SCRIPT = [
  'repo=$1; shift',
  'name=${SHOAL_GIT_AUTHOR_NAME:-$(git -C "$repo" config user.name 2>/dev/null)}',
  'email=${SHOAL_GIT_AUTHOR_EMAIL:-$(git -C "$repo" config user.email 2>/dev/null)}',
  `GIT_AUTHOR_NAME=\${name:-${DEFAULT_AUTHOR}}`,
  `GIT_COMMITTER_NAME=\${name:-${DEFAULT_AUTHOR}}`,
  `GIT_AUTHOR_EMAIL=\${email:-${DEFAULT_EMAIL}}`,
  `GIT_COMMITTER_EMAIL=\${email:-${DEFAULT_EMAIL}}`,
  'export GIT_AUTHOR_NAME GIT_COMMITTER_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_EMAIL',
  'git "$@" || exit',
  '[ -z "$SHOAL_SHA_MARK" ] || printf \'%s%s\\n\' "$SHOAL_SHA_MARK" "$(git -C "$repo" rev-parse HEAD)"',
].join('\n');

function withIdentity(repo: string, gitArgs: string[]): string[] {
  return ['sh', '-c', IDENTITY_SCRIPT, 'sh', repo, ...gitArgs];
}

function identityEnv(identity: { author?: string | null; email?: string | null }): Record<string, string> {
  const env: Record<string, string> = {};
  if (given(identity.author)) env.SHOAL_GIT_AUTHOR_NAME = identity.author;
  if (given(identity.email)) env.SHOAL_GIT_AUTHOR_EMAIL = identity.email;
  return env;
}

/**
 * Checks out a branch; with `$3` = 1 creates it first unless a local branch of that name exists.
 * `checkout <branch> --` makes git read the name as a branch, never as a file to restore, and
 * still finds a same-named remote branch to track. $1: repository, $2: branch, $3: create.
 */
export const CHECKOUT_SCRIPT = [
  'if [ "$3" = 1 ] && ! git -C "$1" rev-parse -q --verify "refs/heads/$2" >/dev/null; then',
  '  exec git -C "$1" checkout -b "$2"',
  'fi',
  'exec git -C "$1" checkout "$2" --',
].join('\n');

export interface CloneInvocations {
  clone: GitInvocation;
  /** Run after a successful clone when `commit_id` is given. */
  checkout?: GitInvocation;
  /** Run when that checkout fails in a shallow clone: fetch the commit, then check out again. */
  fetchCommit?: GitInvocation;
}

export function cloneInvocations(body: GitCloneBody): CloneInvocations {
  const check = checkCloneUrl(body.url);
  // The schema already refused bad URLs; this is a second guard for direct callers.
  if (!check.ok) throw new Error(`refused clone URL: ${check.error}`);
  const parsed = check.value;
  const credentials: GitCredentials = {
    username: given(body.username) ? body.username : parsed.username,
    password: given(body.password) ? body.password : parsed.password,
  };
  const creds = credentialArgs(credentials);
  const secrets = [...creds.secrets, ...(parsed.password ? [parsed.password] : [])];
  const env = { ...BASE_ENV, ...creds.env };
  const dest = resolveRepoPath(body.path);
  const options: string[] = [];
  if (given(body.branch)) options.push(`--branch=${body.branch}`);
  if (given(body.depth)) options.push(`--depth=${body.depth}`);
  const result: CloneInvocations = {
    clone: {
      argv: ['git', ...PROTOCOL_ARGS, ...creds.args, 'clone', ...options, '--', parsed.url, dest],
      env,
      network: true,
      secrets,
    },
  };
  if (given(body.commit_id)) {
    result.checkout = { ...local(dest, ['checkout', body.commit_id, '--']), secrets };
    if (given(body.depth)) {
      result.fetchCommit = {
        argv: [
          'git',
          ...PROTOCOL_ARGS,
          ...creds.args,
          '-C',
          dest,
          'fetch',
          `--depth=${body.depth}`,
          DEFAULT_REMOTE,
          body.commit_id,
        ],
        env,
        network: true,
        secrets,
      };
    }
  }
  return result;
}

export function add(body: GitAddBody): GitInvocation {
  return local(body.path, ['add', '--', ...body.files]);
}

export function reset(body: GitResetBody): GitInvocation {
  const files = body.files ?? [];
  return local(body.path, files.length > 0 ? ['reset', '--', ...files] : ['reset']);
}

/** The marker must be random per request so that nothing git prints can imitate it. */
export function commit(body: GitCommitBody, shaMark: string): GitInvocation {
  const repo = resolveRepoPath(body.path);
  const args = ['-C', repo, 'commit', '-m', body.message, ...(body.allow_empty ? ['--allow-empty'] : [])];
  return {
    argv: withIdentity(repo, args),
    env: { ...BASE_ENV, ...identityEnv(body), SHOAL_SHA_MARK: shaMark },
    network: false,
    secrets: [],
  };
}

/** Splits the marker line off the output; `sha` is "" when it is absent (the commit failed). */
export function extractSha(stdout: string, shaMark: string): { sha: string; stdout: string } {
  const at = stdout.lastIndexOf(shaMark);
  if (at === -1 || (at > 0 && stdout[at - 1] !== '\n')) return { sha: '', stdout };
  const end = stdout.indexOf('\n', at);
  const line = stdout.slice(at + shaMark.length, end === -1 ? undefined : end).trim();
  const rest = stdout.slice(0, at) + (end === -1 ? '' : stdout.slice(end + 1));
  return { sha: /^[0-9a-f]{40,64}$/.test(line) ? line : '', stdout: rest };
}

export function branches(body: GitBranchesBody): GitInvocation {
  const type = body.branch_type ?? 'local';
  const args = ['branch'];
  if (type === 'remote') args.push('--remotes');
  if (type === 'all') args.push('--all');
  if (given(body.contains)) args.push(`--contains=${body.contains}`);
  if (given(body.not_contains)) args.push(`--no-contains=${body.not_contains}`);
  return local(body.path, args);
}

export function checkoutBranch(body: GitCheckoutBody): GitInvocation {
  const repo = resolveRepoPath(body.path);
  return {
    argv: ['sh', '-c', CHECKOUT_SCRIPT, 'sh', repo, body.branch, body.create ? '1' : '0'],
    env: { ...BASE_ENV },
    network: false,
    secrets: [],
  };
}

export function status(body: GitPathBody): GitInvocation {
  return local(body.path, ['status', '--porcelain=v2', '--branch']);
}

function unified(lines: number | null | undefined): string {
  return `--unified=${lines ?? DEFAULT_CONTEXT_LINES}`;
}

export function diff(body: GitDiffBody): GitInvocation {
  // `--` after the target: it is always read as a revision, never as a path.
  return local(body.path, ['diff', unified(body.context_lines), body.target, '--']);
}

export function diffUnstaged(body: GitWorktreeDiffBody): GitInvocation {
  return local(body.path, ['diff', unified(body.context_lines)]);
}

export function diffStaged(body: GitWorktreeDiffBody): GitInvocation {
  return local(body.path, ['diff', '--cached', unified(body.context_lines)]);
}

export function log(body: GitLogBody): GitInvocation {
  return local(body.path, ['log', `--max-count=${body.max_count ?? DEFAULT_LOG_COUNT}`, '--']);
}

export function show(body: GitShowBody): GitInvocation {
  return local(body.path, ['show', body.revision, '--']);
}

export function createBranch(body: GitCreateBranchBody): GitInvocation {
  const base = given(body.base_branch) ? [body.base_branch] : [];
  return local(body.path, body.checkout ? ['switch', '--create', body.name, ...base] : ['branch', body.name, ...base]);
}

export function deleteBranch(body: GitDeleteBranchBody): GitInvocation {
  return local(body.path, ['branch', body.force ? '-D' : '-d', '--', body.name]);
}

function remoteArgs(body: GitRemoteBody): string[] {
  if (given(body.branch)) return [given(body.remote) ? body.remote : DEFAULT_REMOTE, body.branch];
  return given(body.remote) ? [body.remote] : [];
}

export function push(body: GitRemoteBody): GitInvocation {
  const repo = resolveRepoPath(body.path);
  const creds = credentialArgs({ username: body.username ?? undefined, password: body.password ?? undefined });
  return {
    argv: [
      'git',
      ...PROTOCOL_ARGS,
      ...creds.args,
      '-C',
      repo,
      'push',
      ...(body.set_upstream ? ['--set-upstream'] : []),
      ...remoteArgs(body),
    ],
    env: { ...BASE_ENV, ...creds.env },
    network: true,
    secrets: creds.secrets,
  };
}

/** Pull may create a merge commit, so it runs with the same identity rule as commit. */
export function pull(body: GitRemoteBody): GitInvocation {
  const repo = resolveRepoPath(body.path);
  const creds = credentialArgs({ username: body.username ?? undefined, password: body.password ?? undefined });
  const args = [
    ...PROTOCOL_ARGS,
    ...creds.args,
    '-C',
    repo,
    'pull',
    ...(body.set_upstream ? ['--set-upstream'] : []),
    ...remoteArgs(body),
  ];
  return {
    argv: withIdentity(repo, args),
    env: { ...BASE_ENV, ...creds.env },
    network: true,
    secrets: creds.secrets,
  };
}
