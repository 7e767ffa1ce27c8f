import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import Docker from 'dockerode';
import { PROJECT_ROOT } from './prerequisites';

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface ShoalServer {
  url: string;
  pid: number;
  apiKey: string;
  dataDir: string;
  /** Captured stdout + stderr, for assertions on what is (not) logged. */
  output(): string;
  request<T = Record<string, unknown>>(
    method: string,
    route: string,
    options?: { body?: unknown; rawBody?: string | Buffer; headers?: Record<string, string>; auth?: boolean },
  ): Promise<ApiResponse<T>>;
  /** Stops the process; sandboxes keep running (as in production). */
  kill(): Promise<void>;
  /** Deletes every sandbox of this server, stops it, and removes its data dir. */
  stop(): Promise<void>;
}

export interface StartOptions {
  dataDir?: string;
  apiKey?: string;
  env?: Record<string, string>;
}

/**
 * Starts the real Shoal server (the production build) on port 0 with its own data dir. Each
 * server labels its containers with its own instance id, so servers never touch each other's.
 */
export async function startShoal(options: StartOptions = {}): Promise<ShoalServer> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-test-'));
  const apiKey = options.apiKey ?? `sk_test_${randomBytes(24).toString('base64url')}`;
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/index.ts'], {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PORT: '0',
      HOST: '127.0.0.1',
      SHOAL_DATA_DIR: dataDir,
      SHOAL_API_KEY: apiKey,
      SHOAL_ADMIN_PASSWORD: 'test-password',
      SHOAL_RECONCILE_INTERVAL_MS: '500',
      SHOAL_QUIET: '1',
      // Any free port, so test servers never compete for the default 2222.
      SHOAL_SSH_PORT: '0',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const url = await waitForUrl(child, () => output);
  const server: ShoalServer = {
    url,
    pid: child.pid!,
    apiKey,
    dataDir,
    output: () => output,
    async request(method, route, requestOptions = {}) {
      const headers: Record<string, string> = { ...requestOptions.headers };
      if (
        requestOptions.auth !== false &&
        !Object.keys(headers).some((h) => h.toLowerCase().endsWith('authorization'))
      ) {
        headers.authorization = `Bearer ${apiKey}`;
      }
      let body: BodyInit | undefined;
      if (requestOptions.rawBody !== undefined) body = requestOptions.rawBody as BodyInit;
      else if (requestOptions.body !== undefined) {
        body = JSON.stringify(requestOptions.body);
        headers['content-type'] ??= 'application/json';
      }
      const response = await fetch(`${url}${route}`, { method, headers, body });
      const text = await response.text();
      let parsed: unknown = text;
      if ((response.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
      return { status: response.status, headers: response.headers, body: parsed as never, text };
    },
    async kill() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(5000).then(() => child.kill('SIGKILL'))]);
    },
    async stop() {
      await removeInstanceContainers(dataDir);
      await server.kill();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return server;
}

function waitForUrl(child: ChildProcess, output: () => string): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`Shoal did not start within 60 s:\n${output()}`)), 60_000);
    const onData = () => {
      const match = /Shoal is running at (http:\/\/\S+)/.exec(output());
      if (match) {
        cleanup();
        resolve(match[1].replace('localhost', '127.0.0.1'));
      }
    };
    const onExit = (code: number | null) => fail(new Error(`Shoal exited with code ${code}:\n${output()}`));
    const fail = (error: Error) => {
      cleanup();
      reject(error);
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.off('exit', onExit);
    };
    child.stdout!.on('data', onData);
    child.once('exit', onExit);
  });
}

/** Force-removes every container a test server created (matched by its instance label). */
export async function removeInstanceContainers(dataDir: string): Promise<void> {
  let instance: string;
  try {
    instance = fs.readFileSync(path.join(dataDir, 'instance-id'), 'utf8').trim();
  } catch {
    return;
  }
  const docker = new Docker();
  const containers = await docker.listContainers({
    all: true,
    filters: JSON.stringify({ label: [`shoal.instance=${instance}`] }),
  });
  await Promise.all(
    containers.map((c) =>
      docker
        .getContainer(c.Id)
        .remove({ force: true })
        .catch(() => undefined),
    ),
  );
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 30_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}
