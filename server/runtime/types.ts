import type { Duplex, Readable, Writable } from 'node:stream';

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
  /** Egress (server/egress): start on the isolated egress network (custom policies) instead of the default one. */
  egress?: boolean;
}

/** Egress (server/egress): which of Shoal's networks a container is on. */
export type NetworkMode = 'default' | 'egress' | 'none';

/** Egress (server/egress): the bridge network of custom-policy sandboxes. */
export interface EgressNetworkInfo {
  name: string;
  /** The Linux bridge interface (host firewall rules match it). */
  bridge: string;
  subnet: string;
  gateway: string;
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

export interface StreamExecOptions {
  env?: Record<string, string>;
  cwd?: string;
  user?: string;
}

/** A non-TTY process with its three standard streams, streamed (SSH exec, the SFTP bridge). */
export interface ExecProcess {
  /** Raw bytes to the process; ending it closes the process's stdin. */
  stdin: Writable;
  /** Both outputs must be read (or resumed), or the process stalls once a buffer is full. */
  stdout: Readable;
  stderr: Readable;
  /** Resolves with the exit code once the process has ended and its output is drained. */
  exitCode(): Promise<number>;
  /** Drops the connection (the process sees a closed pipe). */
  close(): void;
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
  /** Starts `argv` without a TTY, stdin attached, stdout and stderr streamed separately. */
  openExec(containerId: string, argv: string[], options?: StreamExecOptions): Promise<ExecProcess>;
  // ---- egress (server/egress) ----
  /** Creates the egress network when missing; its name, bridge interface, subnet and gateway. */
  egressNetwork(): Promise<EgressNetworkInfo>;
  /** Leaves the container on exactly one of Shoal's networks (or none), disconnecting the others. */
  setNetworkMode(containerId: string, mode: NetworkMode): Promise<void>;
  /** The container's IPv4 address on the egress network; null when it is not on it. */
  containerAddress(containerId: string): Promise<string | null>;
  /** Sandboxes on the egress network now, whichever Shoal started them. */
  egressNetworkMembers(): Promise<Array<{ sandboxId: string; address: string }>>;
}
