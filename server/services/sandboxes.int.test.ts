import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../spec/sandbox';
import type { Snapshot } from '../spec/snapshot';
import { restoreRunning, sandboxState } from '../testing/sandbox-fixture';
import { eventually, startShoal, type ShoalServer } from '../testing/shoal-server';

const docker = new Docker();

async function containerOf(id: string): Promise<Docker.ContainerInfo | undefined> {
  const list = await docker.listContainers({ all: true, filters: JSON.stringify({ label: [`shoal.sandbox=${id}`] }) });
  return list[0];
}

async function interfaces(id: string): Promise<string[]> {
  const container = docker.getContainer((await containerOf(id))!.Id);
  const exec = await container.exec({ Cmd: ['ls', '/sys/class/net'], AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({});
  const chunks: Buffer[] = [];
  await new Promise((resolve) => {
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', resolve);
  });
  // Non-TTY output is framed; the names are plain words, so strip the 8-byte headers' bytes.
  return Buffer.concat(chunks)
    .toString('latin1')
    .split(/[^a-z0-9]+/)
    .filter((w) => /^(lo|eth\d)$/.test(w));
}

describe('sandbox lifecycle over HTTP', () => {
  let shoal: ShoalServer;
  beforeAll(async () => {
    shoal = await startShoal();
  });
  afterAll(async () => {
    await shoal?.stop();
  });

  describe('authentication', () => {
    it('refuses a missing or unknown key with 401 and the documented body', async () => {
      for (const headers of [
        {},
        { authorization: 'Bearer sk_wrong_key_000000000000' },
        { authorization: 'Bearer ' },
      ] as Record<string, string>[]) {
        const response = await shoal.request('GET', '/v1/sandboxes', { headers, auth: false });
        expect(response.status).toBe(401);
        expect(response.body).toEqual({ message: 'Invalid or missing API key' });
      }
    });

    it('accepts the key in every documented header, with or without Bearer', async () => {
      for (const headers of [
        { authorization: `Bearer ${shoal.apiKey}` },
        { authorization: shoal.apiKey },
        { 'shoal-authorization': shoal.apiKey },
        { 'leap0-authorization': `Bearer ${shoal.apiKey}` },
      ] as Record<string, string>[]) {
        const response = await shoal.request('GET', '/v1/sandboxes', { headers });
        expect(response.status).toBe(200);
        expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      }
    });
  });

  describe('validation', () => {
    it('names every bad field of a restore body', async () => {
      const response = await shoal.request<{ message: string; errors: { field: string }[] }>(
        'POST',
        '/v1/snapshot/restore',
        {
          body: {
            timeout: 2.5,
            auto_pause: 'yes',
            network_policy: { mode: 'custom', allow_domains: ['localhost'], allow_cidrs: ['10.0.0.0/33'] },
          },
        },
      );
      expect(response.status).toBe(400);
      expect(response.body.message).toBe('Invalid request');
      expect(response.body.errors.map((e) => e.field).sort()).toEqual(
        [
          'auto_pause',
          'network_policy.allow_cidrs[0]',
          'network_policy.allow_domains[0]',
          'snapshot_name',
          'timeout',
        ].sort(),
      );
    });

    it('rejects out-of-range and string timeouts, and malformed JSON as field body', async () => {
      for (const timeout of [0, 28801, '60']) {
        const response = await shoal.request<{ errors: { field: string }[] }>('POST', '/v1/snapshot/restore', {
          body: { snapshot_name: 'debian-bookworm', timeout },
        });
        expect(response.status).toBe(400);
        expect(response.body.errors).toEqual([expect.objectContaining({ field: 'timeout' })]);
      }
      const malformed = await shoal.request<{ errors: unknown[] }>('POST', '/v1/snapshot/restore', {
        rawBody: '{"snapshot_name":',
      });
      expect(malformed.status).toBe(400);
      expect(malformed.body.errors).toEqual([{ field: 'body', error: 'is not valid JSON' }]);
    });

    it('answers 413 for a body over 10 MiB before parsing it', async () => {
      const response = await shoal.request('POST', '/v1/snapshot/restore', {
        rawBody: 'x'.repeat(10 * 1024 * 1024 + 1),
      });
      expect(response.status).toBe(413);
      expect(response.body).toHaveProperty('message');
    });

    it('answers 404 naming an unknown snapshot or sandbox, and JSON 404 for unknown routes', async () => {
      const snapshot = await shoal.request('POST', '/v1/snapshot/restore', { body: { snapshot_name: 'no-such-snap' } });
      expect(snapshot.status).toBe(404);
      expect(snapshot.body).toEqual({ message: "Snapshot 'no-such-snap' not found" });
      for (const [method, route] of [
        ['GET', '/v1/sandbox/sbx-doesnotexist'],
        ['DELETE', '/v1/sandbox/sbx-doesnotexist'],
        ['POST', '/v1/sandbox/sbx-doesnotexist/pause'],
        ['POST', '/v1/sandbox/sbx-doesnotexist/snapshot/create'],
      ]) {
        const response = await shoal.request(method, route);
        expect(response.status).toBe(404);
        expect(response.body).toEqual({ message: "Sandbox 'sbx-doesnotexist' not found" });
      }
      const unknown = await shoal.request('GET', '/v1/no/such/route');
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ message: 'No route GET /v1/no/such/route' });
    });
  });

  it('restores with every field present, serves both prefixes and trailing slashes, and accepts text/plain JSON', async () => {
    const created = await shoal.request<Sandbox>('POST', '/v1/snapshot/restore', {
      rawBody: JSON.stringify({ snapshot_name: ' debian-bookworm ', timeout: 600, unknown_field: 1 }),
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^sbx-[a-z0-9]{12}$/),
      template_id: 'system/debian:bookworm',
      mounts: [],
      vcpu: 1,
      memory: 1024,
      memory_mib: 1024,
      disk: 10240,
      timeout: 600,
      state: 'starting',
      auto_pause: false,
      network_policy: { mode: 'allow-all' },
    });
    expect(new Date(created.body.created_at).toISOString()).toBe(created.body.created_at);
    const id = created.body.id;
    const running = await eventually(async () => {
      const current = await shoal.request<Sandbox>('GET', `/api/v1/sandbox/${id}/`);
      return current.body.state === 'running' ? current : undefined;
    });
    expect(running.status).toBe(200);
    expect((await containerOf(id))?.State).toBe('running');
    expect(Object.values(running.body)).not.toContain(null);

    const deleted = await shoal.request('DELETE', `/v1/sandbox/${id}/`);
    expect(deleted.status).toBe(204);
    expect(await containerOf(id)).toBeUndefined();
    expect((await shoal.request('GET', `/v1/sandbox/${id}`)).status).toBe(404);
  });

  it('answers GET ?wait=running once the sandbox runs, and gives up after wait_timeout with the state it has', async () => {
    const created = await shoal.request<Sandbox>('POST', '/v1/snapshot/restore', {
      body: { snapshot_name: 'debian-bookworm' },
    });
    expect(created.body.state).toBe('starting');
    const waited = await shoal.request<Sandbox>('GET', `/v1/sandbox/${created.body.id}?wait=running`);
    expect(waited.status).toBe(200);
    expect(waited.body.state).toBe('running');
    expect((await containerOf(created.body.id))?.State).toBe('running');

    await shoal.request('POST', `/v1/sandbox/${created.body.id}/stop`);
    const gaveUp = await shoal.request<Sandbox>('GET', `/v1/sandbox/${created.body.id}?wait=running&wait_timeout=1`);
    expect(gaveUp.body.state).toBe('stopped');
    const bad = await shoal.request<{ errors: { field: string }[] }>(
      'GET',
      `/v1/sandbox/${created.body.id}?wait=sleeping`,
    );
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e) => e.field)).toEqual(['wait']);
    await shoal.request('DELETE', `/v1/sandbox/${created.body.id}`);
  });

  it('pauses, resumes on demand, stops, starts, and refuses wrong states with 409', async () => {
    const sandbox = await restoreRunning(shoal);
    const id = sandbox.id;

    const paused = await shoal.request<Sandbox>('POST', `/v1/sandbox/${id}/pause`);
    expect(paused.status).toBe(201);
    expect(paused.body.state).toBe('paused');
    expect((await containerOf(id))?.State).toBe('paused');
    const pausedAgain = await shoal.request('POST', `/v1/sandbox/${id}/pause`);
    expect(pausedAgain.status).toBe(409);
    expect(pausedAgain.body).toEqual({ message: `Sandbox '${id}' is not running` });

    const resumed = await shoal.request<Sandbox>('POST', `/v1/sandbox/${id}/resume`);
    expect(resumed.status).toBe(200);
    expect(resumed.body.state).toBe('running');
    expect((await containerOf(id))?.State).toBe('running');
    await shoal.request('POST', `/v1/sandbox/${id}/pause`);

    // Work addressed to a paused sandbox resumes it.
    const policy = await shoal.request<Sandbox>('PUT', `/v1/sandbox/${id}/network-policy`, {
      body: { mode: 'allow-all' },
    });
    expect(policy.status).toBe(200);
    expect(policy.body.state).toBe('running');
    expect((await containerOf(id))?.State).toBe('running');

    const stopped = await shoal.request<Sandbox>('POST', `/v1/sandbox/${id}/stop`);
    expect(stopped.status).toBe(200);
    expect(stopped.body.state).toBe('stopped');
    expect((await containerOf(id))?.State).toBe('exited');
    expect((await shoal.request('POST', `/v1/sandbox/${id}/pause`)).status).toBe(409);
    expect(
      (await shoal.request('PUT', `/v1/sandbox/${id}/network-policy`, { body: { mode: 'deny-all' } })).status,
    ).toBe(409);

    const started = await shoal.request<Sandbox>('POST', `/v1/sandbox/${id}/start`);
    expect(started.status).toBe(200);
    expect(started.body.state).toBe('running');
    expect((await shoal.request('POST', `/v1/sandbox/${id}/start`)).status).toBe(409);
    expect((await shoal.request('DELETE', `/v1/sandbox/${id}`)).status).toBe(204);
  });

  it('gives deny-all sandboxes no network and switches policy without a restart', async () => {
    const sandbox = await restoreRunning(shoal, { network_policy: { mode: 'deny-all' } });
    expect(await interfaces(sandbox.id)).toEqual(['lo']);
    const changed = await shoal.request<Sandbox>('PUT', `/v1/sandbox/${sandbox.id}/network-policy`, {
      body: { mode: 'allow-all' },
    });
    expect(changed.body.network_policy).toEqual({ mode: 'allow-all' });
    expect((await interfaces(sandbox.id)).sort()).toEqual(['eth0', 'lo']);
    const invalid = await shoal.request('PUT', `/v1/sandbox/${sandbox.id}/network-policy`, {
      body: { mode: 'deny-all', allow_cidrs: ['10.0.0.0/8'] },
    });
    expect(invalid.status).toBe(400);
    await shoal.request('DELETE', `/v1/sandbox/${sandbox.id}`);
  });

  it('snapshots a sandbox, restores the snapshot with its files, and guards snapshot deletion', async () => {
    const sandbox = await restoreRunning(shoal);
    const container = docker.getContainer((await containerOf(sandbox.id))!.Id);
    // The snapshot must carry this file: the sandbox's hostname (its id) copied into the work dir.
    const exec = await container.exec({ Cmd: ['cp', '/etc/hostname', '/workspace/marker'], AttachStdout: true });
    await new Promise((resolve) => exec.start({}).then((s) => s.on('end', resolve).resume()));

    const name = `snap-test-${Date.now()}`;
    const snapshot = await shoal.request<Snapshot>('POST', `/v1/sandbox/${sandbox.id}/snapshot/create`, {
      body: { name },
    });
    expect(snapshot.status).toBe(201);
    expect(snapshot.body).toMatchObject({
      id: expect.stringMatching(/^snap-/),
      name,
      template_id: 'system/debian:bookworm',
      vcpu: 1,
    });
    const taken = await shoal.request('POST', `/v1/sandbox/${sandbox.id}/snapshot/create`, { body: { name } });
    expect(taken.status).toBe(409);

    const listed = await shoal.request<{ items: Snapshot[]; total_items: number }>(
      'GET',
      `/v1/snapshots?query=${name}`,
    );
    expect(listed.body.items.map((s) => s.name)).toEqual([name]);

    const restored = await restoreRunning(shoal, { snapshot_name: name });
    const restoredContainer = docker.getContainer((await containerOf(restored.id))!.Id);
    const cat = await restoredContainer.exec({ Cmd: ['cat', '/workspace/marker'], AttachStdout: true });
    const output = await new Promise<string>((resolve) =>
      cat.start({}).then((s) => {
        let text = '';
        s.on('data', (c: Buffer) => (text += c.toString('latin1')));
        s.on('end', () => resolve(text));
      }),
    );
    expect(output).toContain(sandbox.id);

    expect((await shoal.request('DELETE', `/v1/snapshot/${snapshot.body.id}`)).status).toBe(409);
    await shoal.request('DELETE', `/v1/sandbox/${restored.id}`);
    await shoal.request('DELETE', `/v1/sandbox/${sandbox.id}`);
    expect((await shoal.request('DELETE', `/v1/snapshot/${snapshot.body.id}`)).status).toBe(204);
    expect((await shoal.request('DELETE', `/v1/snapshot/${snapshot.body.id}`)).status).toBe(404);
    const builtIn = (await shoal.request<{ items: Snapshot[] }>('GET', '/v1/snapshots')).body.items.find(
      (s) => s.name === 'debian-bookworm',
    )!;
    expect((await shoal.request('DELETE', `/v1/snapshot/${builtIn.id}`)).status).toBe(403);
  });

  it('creates sandboxes from a template with legacy field names, and lists with filters and paging', async () => {
    const created = await shoal.request<Sandbox>('POST', '/v1/sandbox', {
      body: { template_name: 'system/debian:bookworm', vcpu: 2, memory_mib: 2048, timeout_min: 2 },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ vcpu: 2, memory: 2048, memory_mib: 2048, timeout: 120 });
    const odd = await shoal.request<{ errors: { field: string }[] }>('POST', '/v1/sandbox', {
      body: { memory: 1023, vcpu: 9 },
    });
    expect(odd.body.errors.map((e) => e.field).sort()).toEqual(['memory', 'vcpu']);
    const unknownTemplate = await shoal.request('POST', '/v1/sandbox', { body: { template_name: 'nope/nope' } });
    expect(unknownTemplate.status).toBe(404);

    const second = await restoreRunning(shoal);
    const page = await shoal.request<{ items: Sandbox[]; total_items: number }>(
      'GET',
      '/v1/sandboxes?page=1&page-size=1&sort=created_at&order-by=asc',
    );
    expect(page.body.total_items).toBe(2);
    expect(page.body.items.map((s) => s.id)).toEqual([created.body.id]);
    const running = await shoal.request<{ items: Sandbox[] }>('GET', '/v1/sandboxes?state=running');
    expect(running.body.items.every((s) => s.state === 'running')).toBe(true);
    expect((await shoal.request('GET', '/v1/sandboxes?state=bogus')).status).toBe(400);
    await shoal.request('DELETE', `/v1/sandbox/${created.body.id}`);
    await shoal.request('DELETE', `/v1/sandbox/${second.id}`);
  });

  it('publishes an OpenAPI 3.1 document of the routes', async () => {
    const response = await shoal.request<{ openapi: string; paths: Record<string, Record<string, unknown>> }>(
      'GET',
      '/v1/openapi.json',
      { auth: false },
    );
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe('3.1.0');
    expect(Object.keys(response.body.paths['/v1/snapshot/restore'])).toEqual(['post']);
    expect(Object.keys(response.body.paths['/v1/sandbox/{sandboxID}']).sort()).toEqual(['delete', 'get']);
  });
});

describe('timeouts', () => {
  let shoal: ShoalServer;
  beforeAll(async () => {
    shoal = await startShoal();
  });
  afterAll(async () => {
    await shoal?.stop();
  });

  it('removes an idle sandbox when its timeout elapses', async () => {
    const created = await shoal.request<Sandbox>('POST', '/v1/snapshot/restore', {
      body: { snapshot_name: 'debian-bookworm', timeout: 2 },
    });
    await eventually(
      async () => ((await sandboxState(shoal, created.body.id)) === 'deleted' ? true : undefined),
      30_000,
    );
    expect(await containerOf(created.body.id)).toBeUndefined();
  });

  it('pauses instead when auto_pause is set, and resumes on demand', async () => {
    const created = await shoal.request<Sandbox>('POST', '/v1/snapshot/restore', {
      body: { snapshot_name: 'debian-bookworm', timeout: 2, auto_pause: true },
    });
    await eventually(
      async () => ((await sandboxState(shoal, created.body.id)) === 'paused' ? true : undefined),
      30_000,
    );
    expect((await containerOf(created.body.id))?.State).toBe('paused');
    const resumed = await shoal.request<Sandbox>('PUT', `/v1/sandbox/${created.body.id}/network-policy`, {
      body: { mode: 'allow-all' },
    });
    expect(resumed.body.state).toBe('running');
    await shoal.request('DELETE', `/v1/sandbox/${created.body.id}`);
  });
});

describe('limits and engine failures', () => {
  it('answers 429 with Retry-After past the per-team sandbox limit and the rate limit', async () => {
    const shoal = await startShoal({ env: { SHOAL_MAX_SANDBOXES: '1', SHOAL_RATE_LIMIT: '8' } });
    try {
      const first = await shoal.request('POST', '/v1/snapshot/restore', { body: { snapshot_name: 'debian-bookworm' } });
      expect(first.status).toBe(201);
      const second = await shoal.request('POST', '/v1/snapshot/restore', {
        body: { snapshot_name: 'debian-bookworm' },
      });
      expect(second.status).toBe(429);
      expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(0);
      let limited;
      for (let i = 0; i < 10 && !limited; i++) {
        const response = await shoal.request('GET', '/v1/sandboxes');
        if (response.status === 429) limited = response;
      }
      expect(limited?.status).toBe(429);
      expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await shoal.stop();
    }
  });

  it('answers 503 naming the engine when Docker is unreachable, and keeps serving', async () => {
    const shoal = await startShoal({ env: { DOCKER_HOST: 'unix:///tmp/shoal-no-docker.sock' } });
    try {
      for (const [route, body] of [
        ['/v1/sandbox', {}],
        ['/v1/snapshot/restore', { snapshot_name: 'debian-bookworm' }],
      ] as const) {
        const response = await shoal.request<{ message: string }>('POST', route, { body });
        expect(response.status).toBe(503);
        expect(response.body.message).toMatch(/Docker engine is unreachable/);
      }
      const list = await shoal.request('GET', '/v1/sandboxes');
      expect(list.status).toBe(200);
    } finally {
      await shoal.stop();
    }
  });
});

describe('concurrent restores', () => {
  it('starts every sandbox of a burst of restores on a freshly started server', async () => {
    const shoal = await startShoal();
    try {
      const created = await Promise.all(
        [1, 2, 3].map(() =>
          shoal.request<Sandbox>('POST', '/v1/snapshot/restore', { body: { snapshot_name: 'debian-bookworm' } }),
        ),
      );
      expect(created.map((r) => r.status)).toEqual([201, 201, 201]);
      for (const response of created) {
        await eventually(
          async () => ((await sandboxState(shoal, response.body.id)) === 'running' ? true : undefined),
          60_000,
        );
      }
    } finally {
      await shoal.stop();
    }
  });
});

describe('restart reconciliation', () => {
  it('keeps running sandboxes across a restart, marks vanished ones deleted and removes orphans', async () => {
    const first = await startShoal();
    const keep = await restoreRunning(first);
    const vanish = await restoreRunning(first);
    await first.kill();

    // While Shoal is down: one container disappears, and a container nobody owns appears.
    await docker.getContainer((await containerOf(vanish.id))!.Id).remove({ force: true });
    const instance = (await docker.getContainer((await containerOf(keep.id))!.Id).inspect()).Config.Labels[
      'shoal.instance'
    ];
    const orphan = await docker.createContainer({
      Image: 'shoal-snapshot:debian-bookworm',
      Cmd: ['sleep', 'infinity'],
      Labels: { 'shoal.sandbox': 'sbx-orphan000000', 'shoal.instance': instance },
    });

    const second = await startShoal({ dataDir: first.dataDir, apiKey: first.apiKey });
    try {
      const kept = await second.request<Sandbox>('GET', `/v1/sandbox/${keep.id}`);
      expect(kept.body.state).toBe('running');
      expect((await containerOf(keep.id))?.State).toBe('running');
      expect(await sandboxState(second, vanish.id)).toBe('deleted');
      await eventually(
        async () => ((await containerOf('sbx-orphan000000')) ? undefined : true),
        10_000,
        'orphan removal',
      );
    } finally {
      await orphan.remove({ force: true }).catch(() => undefined);
      await second.stop();
    }
  });
});
