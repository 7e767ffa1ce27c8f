import { redactNetworkPolicy } from './network-policy-secrets';
import type { Sandbox } from '../spec/sandbox';
import type { SandboxRecord } from '../store/sandboxes';

/** The wire shape of a sandbox: every field present, legacy `*_mib` aliases included. */
export function sandboxView(record: SandboxRecord, nowMs = Date.now()): Sandbox {
  const view: Sandbox = {
    id: record.id,
    template_id: record.template_id,
    mounts: record.mounts,
    vcpu: record.vcpu,
    memory: record.memory,
    disk: record.disk,
    memory_mib: record.memory,
    disk_mib: record.disk,
    timeout: record.timeout,
    state: record.state,
    auto_pause: record.auto_pause,
    network_policy: redactNetworkPolicy(record.network_policy),
    created_at: record.created_at,
  };
  if (record.state === 'running') {
    view.expires_in = Math.max(0, Math.ceil((record.last_activity_ms + record.timeout * 1000 - nowMs) / 1000));
  }
  return view;
}
