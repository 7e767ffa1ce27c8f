import fs from 'node:fs';
import path from 'node:path';
import Docker from 'dockerode';
import { API_KEY, BASE_URL } from './env';

interface Listed {
  items: { id: string; state: string }[];
}

/**
 * Deletes every sandbox this run created, through the API (the data dir is fresh, so every
 * sandbox in it is ours), then removes any container of this server instance that is left and
 * the data dir itself.
 */
export default async function globalTeardown(): Promise<void> {
  const headers = { authorization: `Bearer ${API_KEY}` };
  try {
    const response = await fetch(`${BASE_URL}/v1/sandboxes?page-size=1000`, { headers });
    const list = (await response.json()) as Listed;
    await Promise.all(
      list.items
        .filter((sandbox) => sandbox.state !== 'deleted')
        .map((sandbox) =>
          fetch(`${BASE_URL}/v1/sandbox/${sandbox.id}`, { method: 'DELETE', headers }).catch(() => undefined),
        ),
    );
  } catch (error) {
    process.stderr.write(`[e2e teardown] could not list sandboxes through the API: ${String(error)}\n`);
  }
  const dataDir = process.env.SHOAL_E2E_DATA_DIR;
  if (!dataDir) return;
  try {
    const instance = fs.readFileSync(path.join(dataDir, 'instance-id'), 'utf8').trim();
    const docker = new Docker();
    const leftovers = await docker.listContainers({
      all: true,
      filters: JSON.stringify({ label: [`shoal.instance=${instance}`] }),
    });
    await Promise.all(
      leftovers.map((c) =>
        docker
          .getContainer(c.Id)
          .remove({ force: true })
          .catch(() => undefined),
      ),
    );
  } catch {
    // no instance id: the server never created a container
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
}
