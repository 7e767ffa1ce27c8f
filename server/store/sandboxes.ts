import type { Mount, NetworkPolicy, SandboxState } from '../spec/common';
import type { Db } from './db';

export interface SandboxRecord {
  id: string;
  team_id: string;
  snapshot_id: string;
  image: string;
  template_id: string;
  vcpu: number;
  memory: number;
  disk: number;
  mounts: Mount[];
  timeout: number;
  auto_pause: boolean;
  network_policy: NetworkPolicy;
  env_vars: Record<string, string>;
  state: SandboxState;
  container_id: string | null;
  created_at: string;
  last_activity_ms: number;
}

interface SandboxRow extends Omit<SandboxRecord, 'mounts' | 'network_policy' | 'env_vars' | 'auto_pause'> {
  mounts: string;
  network_policy: string;
  env_vars: string;
  auto_pause: number;
}

function fromRow(row: SandboxRow | undefined): SandboxRecord | undefined {
  if (!row) return undefined;
  return {
    ...row,
    auto_pause: row.auto_pause === 1,
    mounts: JSON.parse(row.mounts),
    network_policy: JSON.parse(row.network_policy),
    env_vars: JSON.parse(row.env_vars),
  };
}

export type SandboxSort = 'created_at' | 'state';

export class SandboxesRepository {
  constructor(private readonly db: Db) {}

  insert(sandbox: SandboxRecord): void {
    this.db
      .prepare(
        `INSERT INTO sandboxes (id, team_id, snapshot_id, image, template_id, vcpu, memory, disk, mounts, timeout, auto_pause,
           network_policy, env_vars, state, container_id, created_at, last_activity_ms)
         VALUES (@id, @team_id, @snapshot_id, @image, @template_id, @vcpu, @memory, @disk, @mounts, @timeout, @auto_pause,
           @network_policy, @env_vars, @state, @container_id, @created_at, @last_activity_ms)`,
      )
      .run({
        ...sandbox,
        auto_pause: sandbox.auto_pause ? 1 : 0,
        mounts: JSON.stringify(sandbox.mounts),
        network_policy: JSON.stringify(sandbox.network_policy),
        env_vars: JSON.stringify(sandbox.env_vars),
      });
  }

  get(id: string): SandboxRecord | undefined {
    return fromRow(this.db.prepare('SELECT * FROM sandboxes WHERE id = ?').get(id) as SandboxRow | undefined);
  }

  forTeam(teamId: string, id: string): SandboxRecord | undefined {
    return fromRow(
      this.db.prepare("SELECT * FROM sandboxes WHERE id = ? AND team_id = ? AND state != 'deleted'").get(id, teamId) as
        SandboxRow | undefined,
    );
  }

  list(
    teamId: string,
    options: { state?: SandboxState; sort: SandboxSort; order: 'asc' | 'desc'; limit: number; offset: number },
  ): { items: SandboxRecord[]; total: number } {
    const stateClause = options.state ? 'state = @state' : "state != 'deleted'";
    const where = `team_id = @team_id AND ${stateClause}`;
    const params = { team_id: teamId, state: options.state, limit: options.limit, offset: options.offset };
    // Sort column and direction come from a closed set of literals, never from the request text.
    const orderBy = `${options.sort === 'state' ? 'state' : 'created_at'} ${options.order === 'asc' ? 'ASC' : 'DESC'}, id`;
    const rows = this.db
      .prepare(`SELECT * FROM sandboxes WHERE ${where} ORDER BY ${orderBy} LIMIT @limit OFFSET @offset`)
      .all(params) as SandboxRow[];
    const total = (this.db.prepare(`SELECT COUNT(*) AS n FROM sandboxes WHERE ${where}`).get(params) as { n: number })
      .n;
    return { items: rows.map((row) => fromRow(row)!), total };
  }

  /** Every sandbox whose container should exist. */
  live(): SandboxRecord[] {
    return (this.db.prepare("SELECT * FROM sandboxes WHERE state != 'deleted'").all() as SandboxRow[]).map((row) =>
      fromRow(row)!,
    );
  }

  countLiveForTeam(teamId: string): number {
    return (
      this.db
        .prepare("SELECT COUNT(*) AS n FROM sandboxes WHERE team_id = ? AND state NOT IN ('deleted', 'deleting')")
        .get(teamId) as { n: number }
    ).n;
  }

  countLiveUsingSnapshot(snapshotId: string): number {
    return (
      this.db
        .prepare("SELECT COUNT(*) AS n FROM sandboxes WHERE snapshot_id = ? AND state NOT IN ('deleted', 'deleting')")
        .get(snapshotId) as { n: number }
    ).n;
  }

  setState(id: string, state: SandboxState): void {
    this.db.prepare('UPDATE sandboxes SET state = ? WHERE id = ?').run(state, id);
  }

  setContainer(id: string, containerId: string): void {
    this.db.prepare('UPDATE sandboxes SET container_id = ? WHERE id = ?').run(containerId, id);
  }

  setNetworkPolicy(id: string, policy: NetworkPolicy): void {
    this.db.prepare('UPDATE sandboxes SET network_policy = ? WHERE id = ?').run(JSON.stringify(policy), id);
  }

  touch(id: string, atMs: number): void {
    this.db.prepare('UPDATE sandboxes SET last_activity_ms = ? WHERE id = ?').run(atMs, id);
  }
}
