import { randomBytes } from 'node:crypto';
import type { ExecResult, SandboxRuntime } from '../../runtime/types';
import type { GitCloneBody, GitCommitBody, GitCommitResult, GitResult } from '../../spec/git';
import { cloneInvocations, commit, extractSha, type GitInvocation } from './argv';
import { redact } from './redact';

/** Time limits (API.md): 10 min for clone/push/pull, 60 s otherwise; overridable for tests. */
export interface GitLimits {
  timeoutMs: number;
  networkTimeoutMs: number;
  maxOutputBytes: number;
}

export const DEFAULT_GIT_TIMEOUT_MS = 60_000;
export const DEFAULT_GIT_NETWORK_TIMEOUT_MS = 10 * 60_000;
export const MAX_GIT_OUTPUT_BYTES = 10 * 1024 * 1024;
/** A long clone must not let the sandbox time out under it. */
const KEEP_ALIVE_MS = 30_000;

function positiveInt(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got '${raw}'`);
  return value;
}

export function gitLimitsFromEnv(env: Record<string, string | undefined> = process.env): GitLimits {
  return {
    timeoutMs: positiveInt('SHOAL_GIT_TIMEOUT_MS', env.SHOAL_GIT_TIMEOUT_MS, DEFAULT_GIT_TIMEOUT_MS),
    networkTimeoutMs: positiveInt(
      'SHOAL_GIT_NETWORK_TIMEOUT_MS',
      env.SHOAL_GIT_NETWORK_TIMEOUT_MS,
      DEFAULT_GIT_NETWORK_TIMEOUT_MS,
    ),
    maxOutputBytes: MAX_GIT_OUTPUT_BYTES,
  };
}

/** What the git service needs from the sandbox service. */
export interface SandboxAccess {
  ready(teamId: string, sandboxId: string): Promise<{ container_id: string }>;
  touchById(sandboxId: string): void;
}

interface RawRun {
  stdout: string;
  stderr: string;
  exitCode: number;
  timedOut: boolean;
  truncated: boolean;
  limitMs: number;
}

function combine(first: string, second: string): string {
  if (!first || !second) return first + second;
  return first.endsWith('\n') ? first + second : `${first}\n${second}`;
}

/** git's stdout then stderr, with notes on a kill or a cut, credentials redacted. */
export function presentRun(run: RawRun, secrets: readonly string[]): GitResult {
  let output = combine(run.stdout, run.stderr);
  let exitCode = run.exitCode;
  if (run.truncated) output = combine(output, `[output truncated at ${MAX_GIT_OUTPUT_BYTES} bytes]\n`);
  if (run.timedOut) {
    output = combine(output, `git timed out: killed after the ${Math.ceil(run.limitMs / 1000)} s limit\n`);
    if (exitCode === 0) exitCode = 124;
  }
  return { output: redact(output, secrets), exit_code: exitCode };
}

function joinResults(results: GitResult[]): GitResult {
  return {
    output: results.map((result) => result.output).reduce(combine, ''),
    exit_code: results[results.length - 1].exit_code,
  };
}

/**
 * Runs git inside the sandbox's container through the runtime's exec (argv arrays only). A git
 * command that runs and fails is a result (`exit_code` ≠ 0), never an error; errors are only
 * about the sandbox (unknown 404, stopped 409, engine 503).
 */
export class GitService {
  constructor(
    private readonly sandboxes: SandboxAccess,
    private readonly runtime: SandboxRuntime,
    private readonly limits: GitLimits,
  ) {}

  async run(teamId: string, sandboxId: string, invocation: GitInvocation): Promise<GitResult> {
    const { container_id } = await this.sandboxes.ready(teamId, sandboxId);
    return presentRun(await this.exec(sandboxId, container_id, invocation), invocation.secrets);
  }

  /** Clone, then (with `commit_id`) check the commit out; a shallow clone fetches it first if needed. */
  async clone(teamId: string, sandboxId: string, body: GitCloneBody): Promise<GitResult> {
    const { container_id } = await this.sandboxes.ready(teamId, sandboxId);
    const steps = cloneInvocations(body);
    const step = async (invocation: GitInvocation) =>
      presentRun(await this.exec(sandboxId, container_id, invocation), invocation.secrets);
    const cloned = await step(steps.clone);
    if (cloned.exit_code !== 0 || !steps.checkout) return cloned;
    const checkedOut = await step(steps.checkout);
    if (checkedOut.exit_code === 0 || !steps.fetchCommit) return joinResults([cloned, checkedOut]);
    const fetched = await step(steps.fetchCommit);
    if (fetched.exit_code !== 0) return joinResults([cloned, checkedOut, fetched]);
    return joinResults([cloned, fetched, await step(steps.checkout)]);
  }

  /** One exec: identity fallback, commit, and the new HEAD behind a random marker. */
  async commit(teamId: string, sandboxId: string, body: GitCommitBody): Promise<GitCommitResult> {
    const { container_id } = await this.sandboxes.ready(teamId, sandboxId);
    const mark = `shoal-sha-${randomBytes(12).toString('hex')}:`;
    const invocation = commit(body, mark);
    const run = await this.exec(sandboxId, container_id, invocation);
    const { sha, stdout } = extractSha(run.stdout, mark);
    return {
      sha: run.exitCode === 0 && !run.timedOut ? sha : '',
      result: presentRun({ ...run, stdout }, invocation.secrets),
    };
  }

  private async exec(sandboxId: string, containerId: string, invocation: GitInvocation): Promise<RawRun> {
    const limitMs = invocation.network ? this.limits.networkTimeoutMs : this.limits.timeoutMs;
    const keepAlive = setInterval(() => this.sandboxes.touchById(sandboxId), KEEP_ALIVE_MS);
    keepAlive.unref();
    let result: ExecResult;
    try {
      result = await this.runtime.exec(containerId, invocation.argv, {
        env: invocation.env,
        timeoutMs: limitMs,
        maxOutputBytes: this.limits.maxOutputBytes,
      });
    } finally {
      clearInterval(keepAlive);
    }
    this.sandboxes.touchById(sandboxId);
    return {
      stdout: result.stdout.toString('utf8'),
      stderr: result.stderr.toString('utf8'),
      exitCode: result.exitCode,
      timedOut: result.timedOut,
      truncated: result.truncated,
      limitMs,
    };
  }
}
