import type Docker from 'dockerode';
import type { ShoalServer } from '../../server/testing/shoal-server';
import { median, rawExec, runningSandbox, timed, type BenchRow, type BenchSection } from './lib';

/** A raw exec that must succeed; its output is read to the end and dropped. */
async function rawExecOk(container: Docker.Container, argv: string[]): Promise<void> {
  const result = await rawExec(container, argv);
  if (result.exitCode !== 0) throw new Error(`raw exec failed: ${argv.join(' ')}`);
}

async function readFiles(shoal: ShoalServer, id: string, paths: string[]): Promise<number> {
  const response = await fetch(`${shoal.url}/v1/sandbox/${id}/filesystem/read-files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${shoal.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ paths }),
  });
  const body = await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`read-files answered ${response.status}`);
  return body.byteLength;
}

async function glob(shoal: ShoalServer, id: string, path: string): Promise<number> {
  const response = await shoal.request<{ items: string[] }>('POST', `/v1/sandbox/${id}/filesystem/glob`, {
    body: { path },
  });
  if (response.status !== 200) throw new Error(`glob answered ${response.status}`);
  return response.body.items.length;
}

/** Runs ours and raw alternately (same conditions for both), after two warm-up rounds. */
async function compare(
  runs: number,
  ours: () => Promise<unknown>,
  raw: () => Promise<unknown>,
): Promise<{ ours: number; raw: number }> {
  for (let i = 0; i < 2; i++) {
    await ours();
    await raw();
  }
  const oursMs: number[] = [];
  const rawMs: number[] = [];
  for (let i = 0; i < runs; i++) {
    oursMs.push((await timed(ours)).ms);
    rawMs.push((await timed(raw)).ms);
  }
  return { ours: median(oursMs), raw: median(rawMs) };
}

export const filesBench: BenchSection = {
  name: 'Filesystem',
  async run({ shoal, runs }) {
    const { id, container } = await runningSandbox(shoal);
    try {
      // 100 small files (1 KiB) and a tree of 10 000 empty files, each made in one exec.
      await rawExecOk(container, [
        'sh',
        '-c',
        'mkdir -p /workspace/small && cd /workspace/small && for i in $(seq 1 100); do head -c 1024 /dev/urandom > f$i.txt; done',
      ]);
      await rawExecOk(container, [
        'sh',
        '-c',
        'mkdir -p /workspace/tree && cd /workspace/tree && for d in $(seq 1 100); do ' +
          'mkdir d$d && (cd d$d && seq 1 100 | sed "s|^|f|; s|$|.txt|" | xargs touch); done',
      ]);
      const count = await glob(shoal, id, '/workspace/tree');
      if (count < 9000) throw new Error(`bench tree has only ${count} files`);

      const paths = (n: number) => Array.from({ length: n }, (_, i) => `/workspace/small/f${i + 1}.txt`);
      const rows: BenchRow[] = [];
      const results: Record<number, { ours: number; raw: number }> = {};
      for (const n of [1, 10, 100]) {
        results[n] = await compare(
          runs,
          () => readFiles(shoal, id, paths(n)),
          () => rawExecOk(container, ['cat', ...paths(n)]),
        );
        rows.push({
          figure: `read-files, ${n} file${n > 1 ? 's' : ''} of 1 KiB (raw: one exec of cat)`,
          unit: 'ms',
          ours: results[n].ours,
          raw: results[n].raw,
          target: n === 1 ? '≤ 1.2×' : undefined,
        });
      }
      rows.push({
        figure: 'read-files 100 files vs 1 file (both Shoal)',
        unit: 'ms',
        ours: results[100].ours,
        raw: results[1].ours,
        target: '≤ 2×',
      });
      const globbed = await compare(
        runs,
        () => glob(shoal, id, '/workspace/tree'),
        () => rawExecOk(container, ['find', '/workspace/tree', '-type', 'f']),
      );
      rows.push({
        figure: `glob over ${count} files (raw: one exec of find)`,
        unit: 'ms',
        ours: globbed.ours,
        raw: globbed.raw,
      });
      return rows;
    } finally {
      await shoal.request('DELETE', `/v1/sandbox/${id}`);
    }
  },
};
