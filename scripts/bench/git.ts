import type { GitResult } from '../../server/spec/git';
import { median, rawExec, runningSandbox, timed, type BenchSection } from './lib';

const REPO = '/workspace/bench-repo';
const FILES = 10_000;
const WARM_UP = 3;

/** One exec: 100 directories × 100 files, committed, then 10 files changed so status has output. */
const PREPARE = [
  'set -e',
  `mkdir -p ${REPO} && cd ${REPO} && git init -q`,
  'for d in $(seq 0 99); do mkdir d$d; for f in $(seq 0 99); do echo "$d-$f" > d$d/f$f.txt; done; done',
  'git add -A && git -c user.name=bench -c user.email=bench@example.org commit -q -m init',
  'for f in $(seq 0 9); do echo changed >> d0/f$f.txt; done',
].join('\n');

export const gitBench: BenchSection = {
  name: 'Git',
  async run({ shoal, runs }) {
    const { id, container } = await runningSandbox(shoal, { timeout: 3600 });
    try {
      const prepared = await rawExec(container, ['sh', '-c', PREPARE]);
      if (prepared.exitCode !== 0) throw new Error('could not prepare the 10 000-file repository');
      const count = (await rawExec(container, ['sh', '-c', `git -C ${REPO} ls-files | wc -l`])).stdout.toString();
      if (Number(count.trim()) !== FILES) throw new Error(`expected ${FILES} files, got ${count}`);

      const argv = ['git', '-C', REPO, 'status', '--porcelain=v2', '--branch'];
      const ours: number[] = [];
      const raw: number[] = [];
      for (let i = 0; i < WARM_UP + runs; i++) {
        // Interleaved, so that drift on the machine affects both figures alike.
        const viaRoute = await timed(() =>
          shoal.request<GitResult>('POST', `/v1/sandbox/${id}/git/status`, { body: { path: REPO } }),
        );
        const viaDocker = await timed(() => rawExec(container, argv));
        if (viaRoute.value.status !== 200 || viaRoute.value.body.exit_code !== 0) {
          throw new Error(`git status route failed: ${viaRoute.value.text}`);
        }
        if (viaRoute.value.body.output !== viaDocker.value.stdout.toString()) {
          throw new Error('the route and the raw exec disagree on the status output');
        }
        if (i < WARM_UP) continue;
        ours.push(viaRoute.ms);
        raw.push(viaDocker.ms);
      }
      return [
        {
          figure: `git status, repo of ${FILES} files (median)`,
          unit: 'ms',
          ours: median(ours),
          raw: median(raw),
        },
      ];
    } finally {
      await shoal.request('DELETE', `/v1/sandbox/${id}`);
    }
  },
};
