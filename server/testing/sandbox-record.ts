import type { SandboxRecord } from '../store/sandboxes';

/**
 * A stored sandbox for unit tests: running, default resources, allow-all network, container
 * `c-<id>`; `fields` overrides any of it.
 */
export function sandboxRecord(id: string, fields: Partial<SandboxRecord> = {}): SandboxRecord {
  return {
    id,
    team_id: 'team',
    snapshot_id: 'snap-1',
    image: 'img',
    template_id: 'tpl',
    vcpu: 1,
    memory: 1024,
    disk: 1024,
    mounts: [],
    timeout: 300,
    auto_pause: false,
    network_policy: { mode: 'allow-all' },
    env_vars: {},
    state: 'running',
    container_id: `c-${id}`,
    created_at: new Date().toISOString(),
    last_activity_ms: Date.now(),
    ...fields,
  };
}
