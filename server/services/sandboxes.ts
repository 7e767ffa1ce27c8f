import { EventEmitter } from 'node:events';
import type { ShoalConfig } from '../config';
import { Conflict, hasCode, LimitExceeded, NotFound } from '../errors';
import type { SandboxRuntime } from '../runtime/types';
import { DEFAULT_NETWORK_POLICY, type NetworkPolicy, type SandboxState } from '../spec/common';
import type { CreateSandboxBody, RestoreBody, Sandbox } from '../spec/sandbox';
import type { Snapshot } from '../spec/snapshot';
import type { Store } from '../store';
import type { SandboxRecord, SandboxSort } from '../store/sandboxes';
import type { SnapshotRecord } from '../store/snapshots';
import { newId, nowIso } from './ids';
import { keepRedactedSecrets } from './network-policy-secrets';
import { sandboxView } from './sandbox-view';
import { snapshotView } from './snapshot-view';
import { log } from '../log';
import { egressHook, registeredEgressHook } from '../egress/hook';

/** States that end by themselves; a request addressed to the sandbox waits them out. */
const TRANSIENT: ReadonlySet<SandboxState> = new Set(['starting', 'unpausing', 'stopping', 'snapshotting']);
const WAIT_FOR_RUNNING_MS = 60_000;
const DEFAULT_TIMEOUT_S = 300;
/** Activity is written at most this often per sandbox. */
const TOUCH_EVERY_MS = 1000;

export interface ListSandboxesOptions {
  state?: SandboxState;
  sort: SandboxSort;
  order: 'asc' | 'desc';
  page: number;
  pageSize: number;
}

export type SandboxStateListener = (sandboxId: string, state: SandboxState) => void;

export class SandboxService {
  private readonly events = new EventEmitter();
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly launching = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly runtime: SandboxRuntime,
    private readonly config: ShoalConfig,
  ) {
    this.events.setMaxListeners(0);
  }

  /** Called on every state change (PTY sessions and the SSH gateway close what they hold). */
  onStateChange(listener: SandboxStateListener): () => void {
    this.events.on('state', listener);
    return () => this.events.off('state', listener);
  }

  // ---- creation -------------------------------------------------------------------------

  async restore(teamId: string, body: RestoreBody): Promise<Sandbox> {
    const snapshot = this.store.snapshots.visibleByName(teamId, body.snapshot_name);
    if (!snapshot) throw new NotFound('Snapshot', body.snapshot_name);
    const timeout = body.timeout ?? (body.timeout_min ? body.timeout_min * 60 : DEFAULT_TIMEOUT_S);
    return this.launchFrom(teamId, snapshot, {
      vcpu: snapshot.vcpu,
      memory: snapshot.memory,
      timeout,
      auto_pause: body.auto_pause ?? false,
      network_policy: body.network_policy ?? DEFAULT_NETWORK_POLICY,
      env_vars: {},
    });
  }

  async create(teamId: string, body: CreateSandboxBody): Promise<Sandbox> {
    const template = body.template_name ?? 'system/debian:bookworm';
    const snapshot = this.store.snapshots.visibleByTemplate(teamId, template);
    if (!snapshot) throw new NotFound('Template', template);
    return this.launchFrom(teamId, snapshot, {
      vcpu: body.vcpu ?? 1,
      memory: body.memory ?? body.memory_mib ?? 1024,
      timeout: body.timeout ?? (body.timeout_min ? body.timeout_min * 60 : DEFAULT_TIMEOUT_S),
      auto_pause: body.auto_pause ?? false,
      network_policy: body.network_policy ?? DEFAULT_NETWORK_POLICY,
      env_vars: body.env_vars ?? {},
    });
  }

  private async launchFrom(
    teamId: string,
    snapshot: SnapshotRecord,
    settings: Pick<SandboxRecord, 'vcpu' | 'memory' | 'timeout' | 'auto_pause' | 'network_policy' | 'env_vars'>,
  ): Promise<Sandbox> {
    // Custom policies need the egress enforcer: 503 now rather than a sandbox that never starts.
    if (settings.network_policy.mode === 'custom') await egressHook();
    // Also the engine check: an unreachable engine answers 503 here rather than failing later.
    if (!(await this.runtime.imageExists(snapshot.image))) {
      throw new Conflict(
        `The image of snapshot '${snapshot.name}' is missing from the Docker engine; run 'make setup'`,
      );
    }
    const record: SandboxRecord = {
      id: newId('sbx'),
      team_id: teamId,
      snapshot_id: snapshot.id,
      image: snapshot.image,
      template_id: snapshot.template_id,
      disk: snapshot.disk,
      mounts: snapshot.mounts,
      ...settings,
      state: 'starting',
      container_id: null,
      created_at: nowIso(),
      last_activity_ms: Date.now(),
    };
    this.store.db.transaction(() => {
      if (this.store.sandboxes.countLiveForTeam(teamId) >= this.config.maxSandboxesPerTeam) {
        throw new LimitExceeded(
          `Sandbox limit reached (${this.config.maxSandboxesPerTeam} per team); delete one first`,
          30,
        );
      }
      this.store.sandboxes.insert(record);
    })();
    this.launching.add(record.id);
    void this.launch(record).finally(() => this.launching.delete(record.id));
    return sandboxView(record);
  }

  private async launch(record: SandboxRecord): Promise<void> {
    let containerId: string | null = null;
    try {
      // Egress (server/egress): a custom policy starts on the egress network, with the CA variables.
      const egress = record.network_policy.mode === 'custom' ? await egressHook() : null;
      containerId = await this.runtime.create({
        sandboxId: record.id,
        teamId: record.team_id,
        image: record.image,
        vcpu: record.vcpu,
        memoryMib: record.memory,
        diskMib: record.disk,
        env: egress ? { ...egress.containerEnv(), ...record.env_vars } : record.env_vars,
        networked: record.network_policy.mode !== 'deny-all',
        egress: egress !== null,
      });
      this.store.sandboxes.setContainer(record.id, containerId);
      await this.runtime.start(containerId);
      await egress?.attach(record.id, containerId, record.network_policy); // rules and CA before 'running'
      this.store.sandboxes.touch(record.id, Date.now());
      this.setState(record.id, 'running');
    } catch (error) {
      log.error('sandbox launch failed', { sandbox: record.id, error });
      if (containerId) await this.runtime.remove(containerId).catch(() => undefined);
      this.setState(record.id, 'deleted');
    }
  }

  // ---- reading --------------------------------------------------------------------------

  /**
   * With `wait`, answers once the sandbox is in that state, or when `waitMs` has passed (then
   * with whatever state it has): clients waiting for `running` after a restore need not poll.
   */
  async get(teamId: string, id: string, wait?: SandboxState, waitMs = 30_000): Promise<Sandbox> {
    const deadline = Date.now() + waitMs;
    let record = this.find(teamId, id);
    while (wait && record.state !== wait && record.state !== 'deleted' && Date.now() < deadline) {
      await this.waitForChange(id, record.state, deadline - Date.now());
      record = this.store.sandboxes.get(id) ?? record;
    }
    if (record.state === 'running') this.touch(record);
    return sandboxView(record);
  }

  list(teamId: string, options: ListSandboxesOptions): { items: Sandbox[]; total_items: number } {
    const { items, total } = this.store.sandboxes.list(teamId, {
      state: options.state,
      sort: options.sort,
      order: options.order,
      limit: options.pageSize,
      offset: (options.page - 1) * options.pageSize,
    });
    const now = Date.now();
    return { items: items.map((record) => sandboxView(record, now)), total_items: total };
  }

  private find(teamId: string, id: string): SandboxRecord {
    const record = this.store.sandboxes.forTeam(teamId, id);
    if (!record) throw new NotFound('Sandbox', id);
    return record;
  }

  /**
   * For work inside a sandbox (git, files, terminals): waits while it starts, resumes it when
   * paused, refuses when stopped. Counts as activity.
   */
  async ready(teamId: string, id: string): Promise<SandboxRecord & { container_id: string }> {
    const deadline = Date.now() + WAIT_FOR_RUNNING_MS;
    for (;;) {
      const record = this.find(teamId, id);
      if (record.state === 'running' && record.container_id) {
        this.touch(record);
        return record as SandboxRecord & { container_id: string };
      }
      if (record.state === 'paused') {
        await this.withLock(id, () => this.resumeLocked(teamId, id));
        continue;
      }
      if (TRANSIENT.has(record.state)) {
        if (Date.now() >= deadline) throw new Conflict(`Sandbox '${id}' is still ${record.state}; try again`);
        await this.waitForChange(id, record.state, deadline - Date.now());
        continue;
      }
      throw new Conflict(`Sandbox '${id}' is not running`);
    }
  }

  touch(record: Pick<SandboxRecord, 'id' | 'last_activity_ms'>): void {
    const now = Date.now();
    if (now - record.last_activity_ms >= TOUCH_EVERY_MS) this.store.sandboxes.touch(record.id, now);
  }

  /** Activity seen outside an HTTP request (terminal input, an open IDE tab). */
  touchById(id: string): void {
    const record = this.store.sandboxes.get(id);
    if (record && record.state === 'running') this.touch(record);
  }

  // ---- transitions ----------------------------------------------------------------------

  async pause(teamId: string, id: string): Promise<Sandbox> {
    await this.settle(teamId, id);
    return this.withLock(id, async () => {
      const record = this.find(teamId, id);
      if (record.state !== 'running') throw new Conflict(`Sandbox '${id}' is not running`);
      await this.onContainer(record, (containerId) => this.runtime.pause(containerId));
      this.setState(id, 'paused');
      return sandboxView(this.find(teamId, id));
    });
  }

  /** Extension: resumes a paused sandbox; a running one is returned as it is. */
  async resume(teamId: string, id: string): Promise<Sandbox> {
    const record = this.find(teamId, id);
    if (record.state !== 'paused' && record.state !== 'unpausing' && record.state !== 'running') {
      throw new Conflict(`Sandbox '${id}' is not paused`);
    }
    await this.ready(teamId, id);
    return sandboxView(this.find(teamId, id));
  }

  async stop(teamId: string, id: string): Promise<Sandbox> {
    await this.settle(teamId, id);
    return this.withLock(id, async () => {
      const record = this.find(teamId, id);
      if (record.state !== 'running' && record.state !== 'paused') {
        throw new Conflict(`Sandbox '${id}' is not running`);
      }
      this.setState(id, 'stopping');
      try {
        await this.onContainer(record, async (containerId) => {
          if (record.state === 'paused') await this.runtime.unpause(containerId);
          await this.runtime.stop(containerId);
        });
      } catch (error) {
        if (!hasCode(error, 'not_found')) this.setState(id, record.state);
        throw error;
      }
      this.setState(id, 'stopped');
      return sandboxView(this.find(teamId, id));
    });
  }

  async start(teamId: string, id: string): Promise<Sandbox> {
    await this.settle(teamId, id);
    return this.withLock(id, async () => {
      const record = this.find(teamId, id);
      if (record.state !== 'stopped') throw new Conflict(`Sandbox '${id}' is not stopped`);
      this.setState(id, 'starting');
      try {
        await this.onContainer(record, (containerId) => this.runtime.start(containerId));
      } catch (error) {
        if (!hasCode(error, 'not_found')) this.setState(id, 'stopped');
        throw error;
      }
      this.store.sandboxes.touch(id, Date.now());
      this.setState(id, 'running');
      return sandboxView(this.find(teamId, id));
    });
  }

  async remove(teamId: string, id: string): Promise<void> {
    await this.settle(teamId, id);
    await this.withLock(id, async () => {
      const record = this.find(teamId, id);
      await this.destroy(record);
    });
  }

  async snapshot(teamId: string, id: string, name: string | undefined, killAfter: boolean): Promise<Snapshot> {
    await this.ready(teamId, id);
    const snapshot = await this.withLock(id, async () => {
      const record = this.find(teamId, id);
      if (record.state !== 'running' || !record.container_id) throw new Conflict(`Sandbox '${id}' is not running`);
      const snapshotName = name ?? `${record.id}-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      if (this.store.snapshots.byName(snapshotName))
        throw new Conflict(`Snapshot name '${snapshotName}' is already taken`);
      const snapshotId = newId('snap');
      const image = `shoal-snapshot:${snapshotId}`;
      this.setState(id, 'snapshotting');
      try {
        await this.onContainer(record, (containerId) =>
          this.runtime.commit(containerId, image, { 'shoal.snapshot': snapshotId }),
        );
      } finally {
        if (this.store.sandboxes.get(id)?.state === 'snapshotting') this.setState(id, 'running');
      }
      const created: SnapshotRecord = {
        id: snapshotId,
        team_id: teamId,
        name: snapshotName,
        image,
        template_id: record.template_id,
        vcpu: record.vcpu,
        memory: record.memory,
        disk: record.disk,
        mounts: record.mounts,
        network_policy: record.network_policy,
        created_at: nowIso(),
      };
      this.store.snapshots.insert(created);
      return created;
    });
    if (killAfter) await this.remove(teamId, id);
    return snapshotView(snapshot);
  }

  async setNetworkPolicy(teamId: string, id: string, requested: NetworkPolicy): Promise<Sandbox> {
    await this.ready(teamId, id);
    return this.withLock(id, async () => {
      const record = this.find(teamId, id);
      const policy = keepRedactedSecrets(requested, record.network_policy);
      await this.onContainer(record, async (containerId) => {
        // Egress (server/egress): entering, changing or leaving a custom policy goes through its hook.
        if (policy.mode === 'custom' || record.network_policy.mode === 'custom') {
          await (await egressHook()).changePolicy(id, containerId, record.network_policy, policy);
        } else {
          await this.runtime.setNetworked(containerId, policy.mode !== 'deny-all');
        }
      });
      this.store.sandboxes.setNetworkPolicy(id, policy);
      return sandboxView(this.find(teamId, id));
    });
  }

  private async resumeLocked(teamId: string, id: string): Promise<void> {
    const record = this.find(teamId, id);
    if (record.state !== 'paused') return;
    this.setState(id, 'unpausing');
    try {
      await this.onContainer(record, (containerId) => this.runtime.unpause(containerId));
    } catch (error) {
      if (!hasCode(error, 'not_found')) this.setState(id, 'paused');
      throw error;
    }
    this.store.sandboxes.touch(id, Date.now());
    this.setState(id, 'running');
  }

  private async destroy(record: SandboxRecord): Promise<void> {
    this.setState(record.id, 'deleting');
    // Egress (server/egress): a custom sandbox's rules go before its address can be reused.
    if (record.network_policy.mode === 'custom') {
      await registeredEgressHook()
        ?.detach(record.id)
        .catch((error) => log.error('egress detach failed', { sandbox: record.id, error }));
    }
    if (record.container_id) {
      try {
        await this.runtime.remove(record.container_id);
      } catch (error) {
        this.setState(record.id, record.state);
        throw error;
      }
    }
    this.setState(record.id, 'deleted');
  }

  /** Runs a container operation; a vanished container marks the sandbox deleted and answers 404. */
  private async onContainer<T>(record: SandboxRecord, operation: (containerId: string) => Promise<T>): Promise<T> {
    if (!record.container_id) throw new Conflict(`Sandbox '${record.id}' has no container yet`);
    try {
      return await operation(record.container_id);
    } catch (error) {
      if (hasCode(error, 'container_missing')) {
        this.setState(record.id, 'deleted');
        throw new NotFound('Sandbox', record.id);
      }
      throw error;
    }
  }

  /** Waits until the sandbox is in no transient state (starting, stopping…). */
  private async settle(teamId: string, id: string): Promise<void> {
    const deadline = Date.now() + WAIT_FOR_RUNNING_MS;
    for (let record = this.find(teamId, id); TRANSIENT.has(record.state); record = this.find(teamId, id)) {
      if (Date.now() >= deadline) throw new Conflict(`Sandbox '${id}' is still ${record.state}; try again`);
      await this.waitForChange(id, record.state, deadline - Date.now());
    }
  }

  private setState(id: string, state: SandboxState): void {
    this.store.sandboxes.setState(id, state);
    this.events.emit('state', id, state);
  }

  private waitForChange(id: string, from: SandboxState, timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        clearInterval(poll);
        this.events.off('state', listener);
        resolve();
      };
      const listener = (changedId: string, state: SandboxState) => {
        if (changedId === id && state !== from) finish();
      };
      const timer = setTimeout(finish, timeoutMs);
      // The store is the truth; a change made by another module copy is caught by polling it.
      const poll = setInterval(() => {
        if (this.store.sandboxes.get(id)?.state !== from) finish();
      }, 250);
      this.events.on('state', listener);
    });
  }

  private async withLock<T>(id: string, operation: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(id) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(operation);
    const tail = next.catch(() => undefined);
    this.locks.set(id, tail);
    try {
      return await next;
    } finally {
      if (this.locks.get(id) === tail) this.locks.delete(id);
    }
  }

  // ---- reconciliation -------------------------------------------------------------------

  /**
   * Brings the store and the engine into agreement: removes containers nobody owns, marks
   * sandboxes whose container vanished as deleted, follows state changed outside Shoal, and
   * enforces timeouts. Runs at start and every few seconds.
   */
  async reconcile(): Promise<void> {
    let containers;
    try {
      containers = await this.runtime.list();
    } catch (error) {
      if (hasCode(error, 'runtime_unavailable')) return;
      throw error;
    }
    const records = new Map(this.store.sandboxes.live().map((record) => [record.id, record]));
    const containerBySandbox = new Map(containers.map((container) => [container.sandboxId, container]));

    for (const container of containers) {
      if (!records.has(container.sandboxId) && !this.launching.has(container.sandboxId)) {
        log.info('removing orphan container', { sandbox: container.sandboxId });
        await this.runtime.remove(container.containerId).catch(() => undefined);
      }
    }

    const now = Date.now();
    for (const record of records.values()) {
      if (this.launching.has(record.id) || this.locks.has(record.id)) continue;
      const container = containerBySandbox.get(record.id);
      if (!container) {
        this.setState(record.id, 'deleted');
        continue;
      }
      const engineState =
        container.state === 'running' ? 'running' : container.state === 'paused' ? 'paused' : 'stopped';
      if (record.state === 'deleting') {
        await this.withLock(record.id, () => this.destroy(record)).catch(() => undefined);
        continue;
      }
      if (record.state !== engineState) this.setState(record.id, engineState);
      const expired = now >= record.last_activity_ms + record.timeout * 1000;
      if (engineState === 'running' && expired) {
        await this.expire(record).catch((error) => log.error('timeout action failed', { sandbox: record.id, error }));
      }
    }
    // Egress (server/egress): re-establish and sweep custom-policy firewall rules (throttled inside).
    await registeredEgressHook()
      ?.reconcile(this.store.sandboxes.live())
      .catch((error) => log.error('egress reconcile failed', { error }));
  }

  private async expire(record: SandboxRecord): Promise<void> {
    log.info(record.auto_pause ? 'pausing idle sandbox' : 'removing idle sandbox', { sandbox: record.id });
    if (record.auto_pause) await this.pause(record.team_id, record.id);
    else await this.remove(record.team_id, record.id);
  }
}
