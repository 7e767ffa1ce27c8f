import { redactNetworkPolicy } from './network-policy-secrets';
import type { Snapshot } from '../spec/snapshot';
import type { SnapshotRecord } from '../store/snapshots';

export function snapshotView(record: SnapshotRecord): Snapshot {
  return {
    id: record.id,
    name: record.name,
    template_id: record.template_id,
    vcpu: record.vcpu,
    memory: record.memory,
    disk: record.disk,
    memory_mib: record.memory,
    disk_mib: record.disk,
    network_policy: redactNetworkPolicy(record.network_policy),
    created_at: record.created_at,
  };
}
