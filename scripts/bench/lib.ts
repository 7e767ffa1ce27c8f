import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import type Docker from 'dockerode';
import type { Sandbox } from '../../server/spec/sandbox';
import { sandboxContainer } from '../../server/testing/raw-docker';
import type { ShoalServer } from '../../server/testing/shoal-server';

/** The raw side of a figure: Docker straight through dockerode. */
export { rawExec, type RawExecResult } from '../../server/testing/raw-docker';

/** One printed line: our figure beside the raw Docker figure for the same work. */
export interface BenchRow {
  figure: string;
  unit: string;
  ours: number;
  /** Absent for figures that have no raw Docker equivalent (memory, target-only numbers). */
  raw?: number;
  target?: string;
}

export interface BenchContext {
  shoal: ShoalServer;
  /** Repetitions for latency figures (≥ 20). */
  runs: number;
}

export interface BenchSection {
  name: string;
  run(context: BenchContext): Promise<BenchRow[]>;
}

export function median(values: number[]): number {
  return percentile(values, 50);
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await work();
  return { ms: performance.now() - start, value };
}

export function residentMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kib / 1024;
}

function format(value: number | undefined): string {
  if (value === undefined) return '—';
  if (!Number.isFinite(value)) return 'n/a';
  return value >= 100 ? value.toFixed(0) : value.toFixed(value >= 10 ? 1 : 2);
}

export function printRows(section: string, rows: BenchRow[]): void {
  const lines = rows.map((row) => [
    row.figure,
    `${format(row.ours)} ${row.unit}`,
    row.raw === undefined ? '—' : `${format(row.raw)} ${row.unit}`,
    row.raw === undefined || row.raw === 0 ? '—' : `${(row.ours / row.raw).toFixed(2)}×`,
    row.target ?? '',
  ]);
  const header = ['figure', 'shoal', 'raw docker', 'ratio', 'target'];
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((line) => line[i].length)));
  const render = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i])).join('  ');
  process.stdout.write(`\n## ${section}\n${render(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n`);
  for (const line of lines) process.stdout.write(`${render(line)}\n`);
}

export interface RunningSandbox {
  id: string;
  /** Its container, for the raw Docker side of a figure. */
  container: Docker.Container;
}

/**
 * Restores the default snapshot (plus `body`), lets the server answer once it runs
 * (`GET ?wait=running`, no polling) and finds its container by the sandbox label.
 */
export async function runningSandbox(shoal: ShoalServer, body: Record<string, unknown> = {}): Promise<RunningSandbox> {
  const created = await shoal.request<Sandbox>('POST', '/v1/snapshot/restore', {
    body: { snapshot_name: 'debian-bookworm', ...body },
  });
  if (created.status !== 201) throw new Error(`restore failed: ${created.status} ${created.text}`);
  const id = created.body.id;
  const current = await shoal.request<Sandbox>('GET', `/v1/sandbox/${id}?wait=running&wait_timeout=60`);
  if (current.body.state !== 'running') {
    await shoal.request('DELETE', `/v1/sandbox/${id}`);
    throw new Error(`sandbox ${id} did not start: ${current.status} ${current.text}`);
  }
  return { id, container: await sandboxContainer(id) };
}
