import type { ExecOptions, ExecResult, SandboxRuntime } from '../runtime/types';

/** One `exec` a fake runtime received. */
export interface ExecCall {
  containerId: string;
  argv: string[];
  options: ExecOptions;
}

/** A finished exec: exit 0, no output, unless `partial` says otherwise. */
export function execResult(partial: Partial<ExecResult> = {}): ExecResult {
  return {
    stdout: Buffer.alloc(0),
    stderr: Buffer.alloc(0),
    exitCode: 0,
    timedOut: false,
    truncated: false,
    ...partial,
  };
}

/**
 * A runtime for unit tests that only execs: records every call and answers each with `answer`
 * (merged into a successful, empty result). Other runtime methods are absent.
 */
export function fakeExecRuntime(answer: (call: ExecCall) => Partial<ExecResult>): {
  runtime: SandboxRuntime;
  calls: ExecCall[];
} {
  const calls: ExecCall[] = [];
  const runtime = {
    async exec(containerId: string, argv: string[], options: ExecOptions = {}): Promise<ExecResult> {
      const call = { containerId, argv, options };
      calls.push(call);
      return execResult(answer(call));
    },
  } as unknown as SandboxRuntime;
  return { runtime, calls };
}
