import type { Mount, NetworkPolicy } from '../spec/common';
import type { Db } from './db';

export interface SnapshotRecord {
  id: string;
  /** null for the built-in snapshots every team can restore. */
  team_id: string | null;
  name: string;
  image: string;
  template_id: string;
  vcpu: number;
  memory: number;
  disk: number;
  mounts: Mount[];
  network_policy: NetworkPolicy;
  created_at: string;
}

interface SnapshotRow extends Omit<SnapshotRecord, 'mounts' | 'network_policy'> {
  mounts: string;
  network_policy: string;
}

function fromRow(row: SnapshotRow | undefined): SnapshotRecord | undefined {
  if (!row) return undefined;
  return { ...row, mounts: JSON.parse(row.mounts), network_policy: JSON.parse(row.network_policy) };
}

const VISIBLE = '(team_id = @team_id OR team_id IS NULL)';

export class SnapshotsRepository {
  constructor(private readonly db: Db) {}

  insert(snapshot: SnapshotRecord): void {
    this.db
      .prepare(
        `INSERT INTO snapshots (id, team_id, name, image, template_id, vcpu, memory, disk, mounts, network_policy, created_at)
         VALUES (@id, @team_id, @name, @image, @template_id, @vcpu, @memory, @disk, @mounts, @network_policy, @created_at)`,
      )
      .run({
        ...snapshot,
        mounts: JSON.stringify(snapshot.mounts),
        network_policy: JSON.stringify(snapshot.network_policy),
      });
  }

  byName(name: string): SnapshotRecord | undefined {
    return fromRow(this.db.prepare('SELECT * FROM snapshots WHERE name = ?').get(name) as SnapshotRow | undefined);
  }

  visibleByName(teamId: string, name: string): SnapshotRecord | undefined {
    return fromRow(
      this.db.prepare(`SELECT * FROM snapshots WHERE name = @name AND ${VISIBLE}`).get({ name, team_id: teamId }) as
        SnapshotRow | undefined,
    );
  }

  /** The oldest snapshot of a template, or one whose name is the template name. */
  visibleByTemplate(teamId: string, template: string): SnapshotRecord | undefined {
    return fromRow(
      this.db
        .prepare(
          `SELECT * FROM snapshots WHERE (template_id = @template OR name = @template) AND ${VISIBLE}
           ORDER BY team_id IS NOT NULL, created_at LIMIT 1`,
        )
        .get({ template, team_id: teamId }) as SnapshotRow | undefined,
    );
  }

  visibleById(teamId: string, id: string): SnapshotRecord | undefined {
    return fromRow(
      this.db.prepare(`SELECT * FROM snapshots WHERE id = @id AND ${VISIBLE}`).get({ id, team_id: teamId }) as
        SnapshotRow | undefined,
    );
  }

  listVisible(
    teamId: string,
    query: string,
    limit: number,
    offset: number,
  ): { items: SnapshotRecord[]; total: number } {
    const params = { team_id: teamId, query: `%${query}%`, limit, offset };
    const where = `${VISIBLE} AND name LIKE @query`;
    const rows = this.db
      .prepare(`SELECT * FROM snapshots WHERE ${where} ORDER BY created_at, name LIMIT @limit OFFSET @offset`)
      .all(params) as SnapshotRow[];
    const total = (this.db.prepare(`SELECT COUNT(*) AS n FROM snapshots WHERE ${where}`).get(params) as { n: number })
      .n;
    return { items: rows.map((row) => fromRow(row)!), total };
  }

  delete(id: string): void {
    this.db.prepare('DELETE FROM snapshots WHERE id = ?').run(id);
  }
}
