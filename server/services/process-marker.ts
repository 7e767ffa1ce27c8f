import type { SandboxRuntime } from '../runtime/types';

export type MarkerSignal = 'HUP' | 'KILL';

/**
 * Sends signal $1 to every process in the container whose environment holds exactly `$2=$3`
 * (a marker variable set when a terminal or SSH session started its process; the process passes
 * it on to everything it starts, so this reaches the whole session: what a hang-up does).
 * Constant script: the signal, the variable name and its value are positional arguments.
 */
export const SIGNAL_MARKED_SCRIPT = `marker="$2=$3"
for dir in /proc/[0-9]*; do
  if tr '\\0' '\\n' < "$dir/environ" 2>/dev/null | grep -qxF -- "$marker"; then kill "-$1" "\${dir#/proc/}" 2>/dev/null; fi
done
exit 0`;

/** One exec (10 s limit) that signals the processes marked with `name=value`; rejects if the exec fails. */
export async function signalMarked(
  runtime: Pick<SandboxRuntime, 'exec'>,
  containerId: string,
  signal: MarkerSignal,
  name: string,
  value: string,
): Promise<void> {
  await runtime.exec(containerId, ['sh', '-c', SIGNAL_MARKED_SCRIPT, 'sh', signal, name, value], { timeoutMs: 10_000 });
}
