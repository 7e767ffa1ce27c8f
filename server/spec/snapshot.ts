import { z } from 'zod';
import { networkPolicySchema, pageQuery } from './common';

export const snapshotSchema = z.object({
  id: z.string(),
  name: z.string(),
  template_id: z.string(),
  vcpu: z.number().int(),
  memory: z.number().int(),
  disk: z.number().int(),
  memory_mib: z.number().int(),
  disk_mib: z.number().int(),
  network_policy: networkPolicySchema,
  created_at: z.string(),
});
export type Snapshot = z.infer<typeof snapshotSchema>;

export const listSnapshotsQuery = z.object({ query: z.string().max(128).default(''), ...pageQuery });
export const snapshotListSchema = z.object({ items: z.array(snapshotSchema), total_items: z.number().int() });
export const snapshotIdParams = z.object({ snapshotID: z.string().min(1).max(128) });
