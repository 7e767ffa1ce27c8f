import type { Duplex } from 'node:stream';

/**
 * What services need from a container engine. `docker/` is the production implementation;
 * a Kubernetes runtime could sit beside it without touching services.
 */
export interface ContainerSpec {
  sandboxId: string;
  teamId: string;
  image: string;
  vcpu: number;
  memoryMib: number;
  diskMib: number;
  env: Record<string, string>;
  /** false: the container gets no network interface but loopback (deny-all). */
  networked: boolean;
}

export type ContainerState = 'created' | 'running' | 'paused' | 'restarting' | 'removing' | 'exited' | 'dead';

export interface ContainerInfo {
  containerId: string;
  sandboxId: string;
  teamId: string;
  state: ContainerState;
}

export interface ExecOptions {
  stdin?: Buffer;
  env?: Record<string, string>;
  cwd?: string;
  user?: string;
  /** Killed inside the container after this long; the result then has `timedOut` and exit code 124. */
  timeoutMs?: number;
  /** Output beyond this many bytes (stdout + stderr) is dropped and `truncated` is set. */
  maxOutputBytes?: number;
}

export interface ExecResult {
  stdout: Buffer;
  stderr: Buffer;
  exitCode: number;
  timedOut: boolean;
  truncated: boolean;
}

export interface TtyOptions {
  cols: number;
  rows: number;
  env: Record<string, string>;
  cwd: string;
  user?: string;
}

export interface TtyProcess {
  /** Raw terminal bytes both ways. */
  stream: Duplex;
  resize(cols: number, rows: number): Promise<void>;
  /** Resolves with the exit code once the process has ended. */
  exitCode(): Promise<number>;
}

export interface SandboxRuntime {
  /** Throws RuntimeUnavailable when the engine cannot be reached. */
  ping(): Promise<void>;
  imageExists(image: string): Promise<boolean>;
  create(spec: ContainerSpec): Promise<string>;
  start(containerId: string): Promise<void>;
  stop(containerId: string): Promise<void>;
  pause(containerId: string): Promise<void>;
  unpause(containerId: string): Promise<void>;
  remove(containerId: string): Promise<void>;
  setNetworked(containerId: string, networked: boolean): Promise<void>;
  commit(containerId: string, image: string, labels: Record<string, string>): Promise<void>;
  removeImage(image: string): Promise<void>;
  inspect(containerId: string): Promise<ContainerInfo | null>;
  list(): Promise<ContainerInfo[]>;
  exec(containerId: string, argv: string[], options?: ExecOptions): Promise<ExecResult>;
  openTty(containerId: string, argv: string[], options: TtyOptions): Promise<TtyProcess>;
}
