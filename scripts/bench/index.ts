/**
 * `npm run bench`: every figure Shoal cares about, each beside the raw Docker figure for the same
 * work, in one run. Not a test: nothing here passes or fails.
 */
import { checkPrerequisites } from '../../server/testing/prerequisites';
import { startShoal } from '../../server/testing/shoal-server';
import { printRows, type BenchSection } from './lib';
import { lifecycleBench } from './lifecycle';
import { ptyBench } from './pty';
import { sshBench } from './ssh';
import { gitBench } from './git';
import { filesBench } from './files';
import { egressBench } from './egress';

/** Sections run in this order; features append theirs. */
const sections: BenchSection[] = [lifecycleBench, ptyBench, sshBench, gitBench, filesBench, egressBench];

async function main(): Promise<void> {
  await checkPrerequisites();
  const runs = Math.max(20, Number(process.env.BENCH_RUNS ?? 20));
  const only = process.argv.slice(2).map((arg) => arg.toLowerCase());
  const shoal = await startShoal({ env: { SHOAL_MAX_SANDBOXES: '50', SHOAL_RATE_LIMIT: '0', SHOAL_SSH_PORT: '0' } });
  process.stdout.write(`Shoal bench: ${runs} runs per latency figure; medians unless stated.\n`);
  try {
    for (const section of sections) {
      if (only.length > 0 && !only.some((word) => section.name.toLowerCase().includes(word))) continue;
      printRows(section.name, await section.run({ shoal, runs }));
    }
  } finally {
    await shoal.stop();
  }
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
