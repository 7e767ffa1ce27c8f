import { z } from 'zod';
import { mountSchema, networkPolicySchema, pageQuery, sandboxStates } from './common';

export const timeoutSchema = z.number().int().min(1).max(28800);

export const restoreBody = z.object({
  snapshot_name: z.string().trim().min(1).max(64),
  timeout: timeoutSchema.optional(),
  /** Older clients (the `resume` alias) send minutes. */
  timeout_min: z.number().int().min(1).max(480).optional(),
  auto_pause: z.boolean().optional(),
  network_policy: networkPolicySchema.optional(),
});
export type RestoreBody = z.infer<typeof restoreBody>;

export const envVarsSchema = z
  .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a valid environment variable name'), z.string())
  .refine((vars) => Object.keys(vars).length <= 100, 'at most 100 variables');

const memorySchema = z
  .number()
  .int()
  .min(512)
  .max(8192)
  .refine((value) => value % 2 === 0, 'must be an even number of MiB');

export const createSandboxBody = z.object({
  template_name: z.string().trim().min(1).max(128).optional(),
  vcpu: z.number().int().min(1).max(8).optional(),
  memory: memorySchema.optional(),
  memory_mib: memorySchema.optional(),
  timeout: timeoutSchema.optional(),
  timeout_min: z.number().int().min(1).max(480).optional(),
  auto_pause: z.boolean().optional(),
  network_policy: networkPolicySchema.optional(),
  env_vars: envVarsSchema.optional(),
});
export type CreateSandboxBody = z.infer<typeof createSandboxBody>;

/** Extension: `?wait=running` holds the answer until the sandbox is in that state (or 30 s pass). */
export const getSandboxQuery = z.object({
  wait: z.enum(sandboxStates).optional(),
  wait_timeout: z.coerce.number().int().min(1).max(60).default(30),
});

export const listSandboxesQuery = z.object({
  state: z.enum(sandboxStates).optional(),
  sort: z.enum(['created_at', 'state']).default('created_at'),
  'order-by': z.enum(['asc', 'desc']).default('desc'),
  ...pageQuery,
});

export const sandboxSchema = z.object({
  id: z.string(),
  template_id: z.string(),
  mounts: z.array(mountSchema),
  vcpu: z.number().int(),
  memory: z.number().int(),
  disk: z.number().int(),
  memory_mib: z.number().int(),
  disk_mib: z.number().int(),
  timeout: z.number().int(),
  state: z.enum(sandboxStates),
  auto_pause: z.boolean(),
  network_policy: networkPolicySchema,
  created_at: z.string(),
  /** Extension: seconds until the timeout acts, while the sandbox is running. */
  expires_in: z.number().int().optional(),
});
export type Sandbox = z.infer<typeof sandboxSchema>;

export const sandboxListSchema = z.object({ items: z.array(sandboxSchema), total_items: z.number().int() });

export const createSnapshotBody = z.object({
  name: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, dot, dash and underscore only')
    .optional(),
  kill_sandbox_after: z.boolean().optional(),
});

export const networkPolicyBody = networkPolicySchema;
