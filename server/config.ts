import path from 'node:path';

/** Everything Shoal reads from the environment, parsed once. */
export interface ShoalConfig {
  port: number;
  host: string;
  dataDir: string;
  apiKey: string | undefined;
  adminEmail: string;
  adminPassword: string | undefined;
  dockerHost: string | undefined;
  defaultImage: string;
  maxSandboxesPerTeam: number;
  rateLimitPerMinute: number;
  reconcileIntervalMs: number;
  maxBodyBytes: number;
  publicHost: string | undefined;
  dev: boolean;
}

function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    throw new Error(`${name} must be a non-negative integer, got '${raw}'`);
  }
  return value;
}

export function loadConfig(): ShoalConfig {
  return {
    port: intFromEnv('PORT', 3000),
    host: process.env.HOST ?? '0.0.0.0',
    dataDir: path.resolve(/*turbopackIgnore: true*/ process.env.SHOAL_DATA_DIR ?? './.data'),
    apiKey: process.env.SHOAL_API_KEY || undefined,
    adminEmail: process.env.SHOAL_ADMIN_EMAIL ?? 'admin@localhost',
    adminPassword: process.env.SHOAL_ADMIN_PASSWORD || undefined,
    dockerHost: process.env.DOCKER_HOST || undefined,
    defaultImage: process.env.SHOAL_DEFAULT_IMAGE ?? 'shoal-snapshot:debian-bookworm',
    maxSandboxesPerTeam: intFromEnv('SHOAL_MAX_SANDBOXES', 10),
    rateLimitPerMinute: intFromEnv('SHOAL_RATE_LIMIT', 1000),
    reconcileIntervalMs: intFromEnv('SHOAL_RECONCILE_INTERVAL_MS', 3000),
    maxBodyBytes: 10 * 1024 * 1024,
    publicHost: process.env.SHOAL_PUBLIC_HOST || undefined,
    dev: process.env.SHOAL_DEV === '1',
  };
}
