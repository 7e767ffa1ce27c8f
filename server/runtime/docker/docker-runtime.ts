import type { Duplex } from 'node:stream';
import Docker from 'dockerode';
import { ContainerMissing, hasCode, RuntimeUnavailable } from '../../errors';
import type {
  ContainerInfo,
  ContainerSpec,
  ContainerState,
  EgressNetworkInfo,
  ExecOptions,
  ExecProcess,
  ExecResult,
  NetworkMode,
  SandboxRuntime,
  StreamExecOptions,
  TtyOptions,
  TtyProcess,
} from '../types';
import { DockerStreamDemuxer } from './demux';
import { demuxExecStream } from './exec-stream';

export const SANDBOX_NETWORK = 'shoal-sandboxes';
/** Egress (server/egress): custom-policy sandboxes; the host firewall matches its bridge by name. */
export const EGRESS_NETWORK = 'shoal-egress';
const EGRESS_BRIDGE = 'shoal-egress0';
const LABEL_SANDBOX = 'shoal.sandbox';
const LABEL_TEAM = 'shoal.team';
/** Which Shoal data dir owns a container: servers sharing an engine never touch each other's. */
const LABEL_INSTANCE = 'shoal.instance';

/** The capabilities a sandbox keeps: enough for package managers and file ownership, nothing more. */
const CAPABILITIES = [
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'SETGID',
  'SETUID',
  'NET_BIND_SERVICE',
  'SYS_CHROOT',
  'AUDIT_WRITE',
];

const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOENT',
  'EACCES',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
]);

interface DockerError {
  statusCode?: number;
  code?: string;
  json?: { message?: string };
}

function isUnreachable(error: unknown): boolean {
  const code = (error as DockerError)?.code;
  return typeof code === 'string' && UNREACHABLE_CODES.has(code);
}

function statusOf(error: unknown): number | undefined {
  return (error as DockerError)?.statusCode;
}

/** Engine-down errors become RuntimeUnavailable; a 404 on a container becomes ContainerMissing. */
async function call<T>(containerId: string | null, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (isUnreachable(error)) throw new RuntimeUnavailable();
    if (containerId && statusOf(error) === 404) throw new ContainerMissing(containerId);
    throw error;
  }
}

/** Resolves once a stream ends, closes or fails, whichever comes first (never rejects). */
function settled(stream: NodeJS.EventEmitter): Promise<void> {
  return new Promise((resolve) => {
    stream.once('end', () => resolve());
    stream.once('close', () => resolve());
    stream.once('error', () => resolve());
  });
}

function envList(env: Record<string, string> | undefined): string[] | undefined {
  return env ? Object.entries(env).map(([name, value]) => `${name}=${value}`) : undefined;
}

function splitImage(image: string): { repo: string; tag: string } {
  const colon = image.lastIndexOf(':');
  return colon > image.lastIndexOf('/')
    ? { repo: image.slice(0, colon), tag: image.slice(colon + 1) }
    : { repo: image, tag: 'latest' };
}

export class DockerRuntime implements SandboxRuntime {
  private readonly docker: Docker;
  private networkReady: Promise<void> | null = null;
  /** Whether the storage driver honours a per-container size limit; learnt on first create. */
  private storageOptSupported: boolean | null = null;

  constructor(
    private readonly instanceId: string,
    dockerHost?: string,
  ) {
    this.docker = dockerHost ? new Docker(parseDockerHost(dockerHost)) : new Docker();
  }

  async ping(): Promise<void> {
    await call(null, () => this.docker.ping());
  }

  async imageExists(image: string): Promise<boolean> {
    try {
      await call(null, () => this.docker.getImage(image).inspect());
      return true;
    } catch (error) {
      if (statusOf(error) === 404) return false;
      throw error;
    }
  }

  private ensureNetwork(): Promise<void> {
    this.networkReady ??= (async () => {
      const networks = await call(null, () =>
        this.docker.listNetworks({ filters: JSON.stringify({ name: [SANDBOX_NETWORK] }) }),
      );
      if (networks.some((network) => network.Name === SANDBOX_NETWORK)) return;
      await call(null, () =>
        this.docker.createNetwork({
          Name: SANDBOX_NETWORK,
          Driver: 'bridge',
          CheckDuplicate: true,
          Labels: { 'shoal.managed': 'true' },
          // Sandboxes must not reach each other: inter-container traffic is off on this bridge.
          Options: { 'com.docker.network.bridge.enable_icc': 'false' },
        }),
      );
    })().catch((error) => {
      this.networkReady = null;
      throw error;
    });
    return this.networkReady;
  }

  async create(spec: ContainerSpec): Promise<string> {
    await this.ensureNetwork();
    if (spec.egress) await this.egressNetwork(); // egress: custom policies start on their own bridge
    // Decided per call: parallel creates may both try the size limit before either learns the answer.
    const withStorageOpt = this.storageOptSupported !== false;
    const options: Docker.ContainerCreateOptions = {
      name: `shoal-${spec.sandboxId}`,
      Image: spec.image,
      Cmd: ['sleep', 'infinity'],
      Hostname: spec.sandboxId,
      Env: envList(spec.env),
      Labels: { [LABEL_SANDBOX]: spec.sandboxId, [LABEL_TEAM]: spec.teamId, [LABEL_INSTANCE]: this.instanceId },
      HostConfig: {
        Init: true,
        NanoCpus: spec.vcpu * 1e9,
        Memory: spec.memoryMib * 1024 * 1024,
        MemorySwap: spec.memoryMib * 1024 * 1024,
        PidsLimit: 1024,
        CapDrop: ['ALL'],
        CapAdd: CAPABILITIES,
        SecurityOpt: ['no-new-privileges'],
        NetworkMode: spec.egress ? EGRESS_NETWORK : SANDBOX_NETWORK,
        RestartPolicy: { Name: 'no' },
        ...(withStorageOpt ? { StorageOpt: { size: `${spec.diskMib}M` } } : {}),
      },
    };
    let container: Docker.Container;
    try {
      container = await call(null, () => this.docker.createContainer(options));
      this.storageOptSupported ??= true;
    } catch (error) {
      const message = String((error as DockerError).json?.message ?? (error as Error).message);
      if (withStorageOpt && /storage-opt|StorageOpt|quota/i.test(message)) {
        // overlay2 enforces a size only on xfs with pquota; elsewhere the disk size is reported as configured.
        this.storageOptSupported = false;
        return this.create(spec);
      }
      throw error;
    }
    if (!spec.networked) await this.setNetworked(container.id, false);
    return container.id;
  }

  async start(containerId: string): Promise<void> {
    await call(containerId, () => this.docker.getContainer(containerId).start());
  }

  async stop(containerId: string): Promise<void> {
    await call(containerId, () => this.docker.getContainer(containerId).stop({ t: 2 })).catch((error) => {
      if (statusOf(error) !== 304) throw error; // 304: already stopped
    });
  }

  async pause(containerId: string): Promise<void> {
    await call(containerId, () => this.docker.getContainer(containerId).pause());
  }

  async unpause(containerId: string): Promise<void> {
    await call(containerId, () => this.docker.getContainer(containerId).unpause());
  }

  async remove(containerId: string): Promise<void> {
    try {
      await call(containerId, () => this.docker.getContainer(containerId).remove({ force: true, v: true }));
    } catch (error) {
      if (!hasCode(error, 'container_missing')) throw error;
    }
  }

  async setNetworked(containerId: string, networked: boolean): Promise<void> {
    await this.ensureNetwork();
    const info = await call(containerId, () => this.docker.getContainer(containerId).inspect());
    const attached = SANDBOX_NETWORK in (info.NetworkSettings?.Networks ?? {});
    if (attached === networked) return;
    const network = this.docker.getNetwork(SANDBOX_NETWORK);
    await call(containerId, () =>
      networked
        ? network.connect({ Container: containerId })
        : network.disconnect({ Container: containerId, Force: true }),
    );
  }

  // ---- egress (server/egress) ---------------------------------------------------------------

  private egressInfo: Promise<EgressNetworkInfo> | null = null;

  egressNetwork(): Promise<EgressNetworkInfo> {
    this.egressInfo ??= (async () => {
      const network = this.docker.getNetwork(EGRESS_NETWORK);
      let info = await call(null, () => network.inspect()).catch((error) => {
        if (statusOf(error) === 404) return null;
        throw error;
      });
      if (!info) {
        await call(null, () =>
          this.docker.createNetwork({
            Name: EGRESS_NETWORK,
            Driver: 'bridge',
            CheckDuplicate: true,
            Labels: { 'shoal.managed': 'true' },
            Options: {
              'com.docker.network.bridge.enable_icc': 'false',
              'com.docker.network.bridge.name': EGRESS_BRIDGE,
            },
          }),
        ).catch((error) => {
          if (statusOf(error) !== 409) throw error; // another Shoal created it meanwhile
        });
        info = await call(null, () => network.inspect());
      }
      const ipam = (info.IPAM?.Config ?? []).find((config: { Subnet?: string }) => config.Subnet?.includes('.'));
      if (!ipam?.Subnet || !ipam.Gateway) throw new Error(`network ${EGRESS_NETWORK} has no IPv4 subnet and gateway`);
      return {
        name: EGRESS_NETWORK,
        bridge: info.Options?.['com.docker.network.bridge.name'] ?? `br-${String(info.Id).slice(0, 12)}`,
        subnet: ipam.Subnet,
        gateway: ipam.Gateway,
      };
    })().catch((error) => {
      this.egressInfo = null;
      throw error;
    });
    return this.egressInfo;
  }

  async setNetworkMode(containerId: string, mode: NetworkMode): Promise<void> {
    const wanted = mode === 'default' ? SANDBOX_NETWORK : mode === 'egress' ? EGRESS_NETWORK : null;
    if (mode === 'default') await this.ensureNetwork();
    if (mode === 'egress') await this.egressNetwork();
    const info = await call(containerId, () => this.docker.getContainer(containerId).inspect());
    const attached = Object.keys(info.NetworkSettings?.Networks ?? {});
    // Off the other networks first: the container never has two ways out at once.
    for (const name of [SANDBOX_NETWORK, EGRESS_NETWORK]) {
      if (name === wanted || !attached.includes(name)) continue;
      await call(containerId, () => this.docker.getNetwork(name).disconnect({ Container: containerId, Force: true }));
    }
    if (wanted && !attached.includes(wanted)) {
      await call(containerId, () => this.docker.getNetwork(wanted).connect({ Container: containerId }));
    }
  }

  async containerAddress(containerId: string): Promise<string | null> {
    const info = await call(containerId, () => this.docker.getContainer(containerId).inspect());
    return info.NetworkSettings?.Networks?.[EGRESS_NETWORK]?.IPAddress || null;
  }

  async egressNetworkMembers(): Promise<Array<{ sandboxId: string; address: string }>> {
    const info = await call(null, () => this.docker.getNetwork(EGRESS_NETWORK).inspect()).catch((error) => {
      if (statusOf(error) === 404) return null;
      throw error;
    });
    const containers = (info?.Containers ?? {}) as Record<string, { Name?: string; IPv4Address?: string }>;
    return Object.values(containers)
      .filter((container) => container.Name?.startsWith('shoal-') && container.IPv4Address)
      .map((container) => ({
        sandboxId: container.Name!.slice('shoal-'.length),
        address: container.IPv4Address!.split('/')[0],
      }));
  }

  async commit(containerId: string, image: string, labels: Record<string, string>): Promise<void> {
    const { repo, tag } = splitImage(image);
    const changes = Object.entries(labels).map(([name, value]) => `LABEL ${name}=${JSON.stringify(value)}`);
    await call(containerId, () => this.docker.getContainer(containerId).commit({ repo, tag, pause: true, changes }));
  }

  async removeImage(image: string): Promise<void> {
    try {
      await call(null, () => this.docker.getImage(image).remove({ force: true }));
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
    }
  }

  async inspect(containerId: string): Promise<ContainerInfo | null> {
    try {
      const info = await call(containerId, () => this.docker.getContainer(containerId).inspect());
      return {
        containerId: info.Id,
        sandboxId: info.Config.Labels?.[LABEL_SANDBOX] ?? '',
        teamId: info.Config.Labels?.[LABEL_TEAM] ?? '',
        state: info.State.Status as ContainerState,
      };
    } catch (error) {
      if (hasCode(error, 'container_missing')) return null;
      throw error;
    }
  }

  async list(): Promise<ContainerInfo[]> {
    const containers = await call(null, () =>
      this.docker.listContainers({
        all: true,
        filters: JSON.stringify({ label: [LABEL_SANDBOX, `${LABEL_INSTANCE}=${this.instanceId}`] }),
      }),
    );
    return containers.map((container) => ({
      containerId: container.Id,
      sandboxId: container.Labels[LABEL_SANDBOX],
      teamId: container.Labels[LABEL_TEAM] ?? '',
      state: container.State as ContainerState,
    }));
  }

  async exec(containerId: string, argv: string[], options: ExecOptions = {}): Promise<ExecResult> {
    const container = this.docker.getContainer(containerId);
    const seconds = options.timeoutMs ? Math.max(1, Math.ceil(options.timeoutMs / 1000)) : 0;
    // coreutils' timeout kills the command inside the container, where it runs.
    const cmd = seconds > 0 ? ['timeout', '-k', '2', String(seconds), ...argv] : argv;
    const exec = await call(containerId, () =>
      container.exec({
        Cmd: cmd,
        AttachStdin: !!options.stdin,
        AttachStdout: true,
        AttachStderr: true,
        Tty: false,
        Env: envList(options.env),
        WorkingDir: options.cwd,
        User: options.user,
      }),
    );
    const stream = (await call(containerId, () =>
      exec.start({ hijack: true, stdin: !!options.stdin }),
    )) as NodeJS.ReadWriteStream & { destroy(): void };
    const demuxer = new DockerStreamDemuxer(options.maxOutputBytes);
    let hostTimedOut = false;
    await new Promise<void>((resolve, reject) => {
      // A last guard in case the engine never ends the stream (the in-container timeout did not fire).
      const guard =
        seconds > 0
          ? setTimeout(
              () => {
                hostTimedOut = true;
                stream.destroy();
                resolve();
              },
              seconds * 1000 + 10_000,
            )
          : undefined;
      const done = () => {
        clearTimeout(guard);
        resolve();
      };
      stream.on('data', (chunk: Buffer) => demuxer.push(chunk));
      stream.on('end', done);
      stream.on('close', done);
      stream.on('error', (error) => {
        clearTimeout(guard);
        reject(isUnreachable(error) ? new RuntimeUnavailable() : error);
      });
      if (options.stdin) stream.end(options.stdin);
    });
    const exitCode = hostTimedOut ? 124 : await this.execExitCode(exec);
    const { stdout, stderr } = demuxer.result();
    return {
      stdout,
      stderr,
      exitCode,
      timedOut: seconds > 0 && (hostTimedOut || exitCode === 124 || exitCode === 137),
      truncated: demuxer.truncated,
    };
  }

  /** The exit code can lag the end of the stream by a moment. */
  private async execExitCode(exec: Docker.Exec): Promise<number> {
    for (let attempt = 0; attempt < 50; attempt++) {
      const info = await exec.inspect();
      if (!info.Running && info.ExitCode !== null && info.ExitCode !== undefined) return info.ExitCode;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return -1;
  }

  /** Creates an exec with all three streams attached and starts it hijacked: one raw connection both ways. */
  private async attach(
    containerId: string,
    argv: string[],
    options: StreamExecOptions,
    tty: boolean,
  ): Promise<{ exec: Docker.Exec; stream: Duplex }> {
    const container = this.docker.getContainer(containerId);
    const exec = await call(containerId, () =>
      container.exec({
        Cmd: argv,
        AttachStdin: true,
        AttachStdout: true,
        AttachStderr: true,
        Tty: tty,
        Env: envList(options.env),
        WorkingDir: options.cwd,
        User: options.user,
      }),
    );
    const stream = (await call(containerId, () =>
      exec.start(tty ? { hijack: true, stdin: true, Tty: true } : { hijack: true, stdin: true }),
    )) as unknown as Duplex;
    return { exec, stream };
  }

  async openTty(containerId: string, argv: string[], options: TtyOptions): Promise<TtyProcess> {
    const { exec, stream } = await this.attach(containerId, argv, options, true);
    const resize = async (cols: number, rows: number) => {
      await call(containerId, () => exec.resize({ h: rows, w: cols }));
    };
    await resize(options.cols, options.rows).catch(() => undefined);
    const ended = settled(stream);
    return {
      stream,
      resize,
      exitCode: async () => {
        await ended;
        return this.execExitCode(exec);
      },
    };
  }

  async openExec(containerId: string, argv: string[], options: StreamExecOptions = {}): Promise<ExecProcess> {
    const { exec, stream: socket } = await this.attach(containerId, argv, options, false);
    const { stdin, stdout, stderr, ended } = demuxExecStream(socket);
    const outputsDone = Promise.all([settled(stdout), settled(stderr)]);
    return {
      stdin,
      stdout,
      stderr,
      exitCode: async () => {
        await ended;
        await outputsDone;
        return this.execExitCode(exec);
      },
      close: () => socket.destroy(),
    };
  }
}

/** DOCKER_HOST as dockerode wants it: unix:///path, tcp://host:port or http(s)://host:port. */
export function parseDockerHost(value: string): Docker.DockerOptions {
  if (value.startsWith('unix://')) return { socketPath: value.slice('unix://'.length) };
  const url = new URL(value.replace(/^tcp:/, 'http:'));
  return { host: url.hostname, port: Number(url.port || 2375), protocol: url.protocol === 'https:' ? 'https' : 'http' };
}
