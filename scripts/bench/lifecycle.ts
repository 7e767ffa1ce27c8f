import Docker from 'dockerode';
import type { Sandbox } from '../../server/spec/sandbox';
import { SANDBOX_NETWORK } from '../../server/runtime/docker/docker-runtime';
import { median, residentMiB, timed, type BenchSection } from './lib';

const IMAGE = process.env.SHOAL_DEFAULT_IMAGE ?? 'shoal-snapshot:debian-bookworm';

export const lifecycleBench: BenchSection = {
  name: 'Sandbox lifecycle',
  async run({ shoal, runs }) {
    const docker = new Docker();
    const toCreated: number[] = [];
    const toRunning: number[] = [];
    const toRunningWaiting: number[] = [];
    const raw: number[] = [];
    const idleMiB = residentMiB(shoal.pid);

    for (let i = 0; i < runs; i++) {
      // Ours: request → 201, and request → the API reports `running`.
      const start = performance.now();
      const created = await shoal.request<Sandbox>('POST', '/v1/snapshot/restore', {
        body: { snapshot_name: 'debian-bookworm' },
      });
      toCreated.push(performance.now() - start);
      for (;;) {
        const current = await shoal.request<Sandbox>('GET', `/v1/sandbox/${created.body.id}`);
        if (current.body.state === 'running') break;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      toRunning.push(performance.now() - start);
      await shoal.request('DELETE', `/v1/sandbox/${created.body.id}`);

      // Ours, as a client that asks the server to answer once the sandbox runs (no polling).
      const waitStart = performance.now();
      const waited = await shoal.request<Sandbox>('POST', '/v1/snapshot/restore', {
        body: { snapshot_name: 'debian-bookworm' },
      });
      const running = await shoal.request<Sandbox>('GET', `/v1/sandbox/${waited.body.id}?wait=running`);
      if (running.body.state !== 'running') throw new Error(`sandbox ${waited.body.id} did not start`);
      toRunningWaiting.push(performance.now() - waitStart);
      await shoal.request('DELETE', `/v1/sandbox/${waited.body.id}`);

      // Raw: the same container made and started straight through dockerode.
      const rawRun = await timed(async () => {
        const container = await docker.createContainer({
          Image: IMAGE,
          Cmd: ['sleep', 'infinity'],
          HostConfig: { Init: true, NetworkMode: SANDBOX_NETWORK, Memory: 1024 * 1024 * 1024, NanoCpus: 1e9 },
        });
        await container.start();
        return container;
      });
      raw.push(rawRun.ms);
      await rawRun.value.remove({ force: true });
    }

    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const created = await shoal.request<Sandbox>('POST', '/v1/snapshot/restore', {
        body: { snapshot_name: 'debian-bookworm' },
      });
      ids.push(created.body.id);
    }
    for (const id of ids) {
      for (;;) {
        const current = await shoal.request<Sandbox>('GET', `/v1/sandbox/${id}`);
        if (current.body.state === 'running') break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    const busyMiB = residentMiB(shoal.pid);
    for (const id of ids) await shoal.request('DELETE', `/v1/sandbox/${id}`);

    return [
      { figure: 'restore: request → 201 (median)', unit: 'ms', ours: median(toCreated) },
      {
        figure: 'restore: request → running, polling GET every 5 ms (median)',
        unit: 'ms',
        ours: median(toRunning),
        raw: median(raw),
        target: '≤ 1.3×',
      },
      {
        figure: 'restore: request → running, GET ?wait=running (median)',
        unit: 'ms',
        ours: median(toRunningWaiting),
        raw: median(raw),
        target: '≤ 1.3×',
      },
      { figure: 'Shoal resident memory, idle', unit: 'MiB', ours: idleMiB, target: '≤ 400 MiB' },
      { figure: 'Shoal resident memory, 10 sandboxes running', unit: 'MiB', ours: busyMiB, target: '≤ 400 MiB' },
    ];
  },
};
