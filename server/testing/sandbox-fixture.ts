import type { Sandbox } from '../spec/sandbox';
import { eventually, type ShoalServer } from './shoal-server';

/** Lists without addressing the sandbox, so it does not count as activity. */
export async function sandboxState(server: ShoalServer, id: string): Promise<string> {
  const live = await server.request<{ items: Sandbox[] }>('GET', '/v1/sandboxes?page-size=1000');
  const deleted = await server.request<{ items: Sandbox[] }>('GET', '/v1/sandboxes?page-size=1000&state=deleted');
  return [...live.body.items, ...deleted.body.items].find((s) => s.id === id)?.state ?? 'absent';
}

/** Restores the default snapshot and waits until the sandbox runs. */
export async function restoreRunning(server: ShoalServer, body: Record<string, unknown> = {}): Promise<Sandbox> {
  const created = await server.request<Sandbox>('POST', '/v1/snapshot/restore', {
    body: { snapshot_name: 'debian-bookworm', ...body },
  });
  if (created.status !== 201) throw new Error(`restore failed: ${created.status} ${created.text}`);
  return eventually(
    async () => {
      const current = await server.request<Sandbox>('GET', `/v1/sandbox/${created.body.id}`);
      return current.body.state === 'running' ? current.body : undefined;
    },
    60_000,
    `sandbox ${created.body.id} to run`,
  );
}
