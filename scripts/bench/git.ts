import { PassThrough } from 'node:stream';
import Docker from 'dockerode';
import type { Sandbox } from '../../server/spec/sandbox';
import type { GitResult } from '../../server/spec/git';
import { median, timed, type BenchSection } from './lib';

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

/** A raw exec straight through dockerode, read to the end, with its exit code: what Shoal's runtime does. */
async function rawExec(container: Docker.Container, argv: string[]): Promise<{ stdout: string; code: number }> {
  const exec = await container.exec({ Cmd: argv, AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({});
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (chunk: Buffer) => chunks.push(chunk));
  container.modem.demuxStream(stream, out, new PassThrough().resume());
  await new Promise((resolve) => stream.on('end', resolve));
  const info = await exec.inspect();
  return { stdout: Buffer.concat(chunks).toString(), code: info.ExitCode ?? -1 };
}

export const gitBench: BenchSection = {
  name: 'Git',
  async run({ shoal, runs }) {
    const docker = new Docker();
    const created = await shoal.request<Sandbox>('POST', '/v1/snapshot/restore', {
      body: { snapshot_name: 'debian-bookworm', timeout: 3600 },
    });
    if (created.status !== 201) throw new Error(`restore failed: ${created.status} ${created.text}`);
    const id = created.body.id;
    try {
      for (;;) {
        const current = await shoal.request<Sandbox>('GET', `/v1/sandbox/${id}`);
        if (current.body.state === 'running') break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const [info] = await docker.listContainers({ filters: JSON.stringify({ label: [`shoal.sandbox=${id}`] }) });
      const container = docker.getContainer(info.Id);
      const prepared = await rawExec(container, ['sh', '-c', PREPARE]);
      if (prepared.code !== 0) throw new Error('could not prepare the 10 000-file repository');
      const count = await rawExec(container, ['sh', '-c', `git -C ${REPO} ls-files | wc -l`]);
      if (Number(count.stdout.trim()) !== FILES) throw new Error(`expected ${FILES} files, got ${count.stdout}`);

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
        if (viaRoute.value.body.output !== viaDocker.value.stdout) {
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
