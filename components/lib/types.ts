/**
 * Wire types the browser reads. Sandbox, snapshot and account types come from the server's zod
 * specs (type-only imports); the rest follow docs/API.md.
 */
export type { Sandbox } from '@/server/spec/sandbox';
export type { Snapshot } from '@/server/spec/snapshot';
export type { ApiKey, CreatedApiKey } from '@/server/spec/account';
export type { NetworkPolicy, SandboxState } from '@/server/spec/common';

export interface PtySession {
  id: string;
  cwd: string;
  envs: Record<string, string>;
  cols: number;
  rows: number;
  created_at: string;
  active: boolean;
  lazy_start: boolean;
}

export interface FileInfo {
  name: string;
  path: string;
  is_dir: boolean;
  size: number;
  /** e.g. "644" */
  mode: string;
  /** unix seconds */
  mtime: number;
  owner: string;
  group: string;
  is_symlink: boolean;
  link_target?: string;
}

export interface GitResult {
  output: string;
  exit_code: number;
}

export interface CommitResult {
  sha: string;
  result: GitResult;
}
