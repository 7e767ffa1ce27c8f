import { Conflict, NotFound, PermissionDenied } from '../errors';
import type { SandboxRuntime } from '../runtime/types';
import type { Snapshot } from '../spec/snapshot';
import type { Store } from '../store';
import { snapshotView } from './snapshot-view';

export class SnapshotService {
  constructor(
    private readonly store: Store,
    private readonly runtime: SandboxRuntime,
  ) {}

  list(teamId: string, query: string, page: number, pageSize: number): { items: Snapshot[]; total_items: number } {
    const { items, total } = this.store.snapshots.listVisible(teamId, query, pageSize, (page - 1) * pageSize);
    return { items: items.map(snapshotView), total_items: total };
  }

  async remove(teamId: string, id: string): Promise<void> {
    const snapshot = this.store.snapshots.visibleById(teamId, id);
    if (!snapshot) throw new NotFound('Snapshot', id);
    if (snapshot.team_id === null)
      throw new PermissionDenied(`Snapshot '${snapshot.name}' is built in and cannot be deleted`);
    if (this.store.sandboxes.countLiveUsingSnapshot(id) > 0) {
      throw new Conflict(`Snapshot '${snapshot.name}' is used by a sandbox; delete the sandbox first`);
    }
    await this.runtime.removeImage(snapshot.image);
    this.store.snapshots.delete(id);
  }
}
