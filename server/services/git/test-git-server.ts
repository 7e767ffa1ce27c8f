/**
 * Test helper (integration tests only): a smart-HTTP git server on the host. A small Node HTTP
 * server runs the host's own `git http-backend` as a CGI program, with HTTP basic auth in front
 * of the repositories whose name starts with `private`. Sandboxes reach it at the gateway of
 * the sandbox network.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const HTTP_BACKEND = '/usr/lib/git-core/git-http-backend';

export interface TestGitServer {
  /** `http://host:port` */
  url: string;
  /** The directory holding the bare repositories. */
  root: string;
  /** Basic-auth requests seen, by outcome; proves credentials were (not) sent. */
  authAttempts: { ok: number; refused: number };
  close(): Promise<void>;
}

/** Runs host git in a temporary directory (never in the project's work tree). */
export function hostGit(cwd: string, args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    env: {
      PATH: process.env.PATH,
      HOME: cwd,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'Fixture',
      GIT_AUTHOR_EMAIL: 'fixture@example.org',
      GIT_COMMITTER_NAME: 'Fixture',
      GIT_COMMITTER_EMAIL: 'fixture@example.org',
    } as unknown as NodeJS.ProcessEnv,
    encoding: 'utf8',
  }).trim();
}

export function checkHttpBackend(): void {
  if (!fs.existsSync(HTTP_BACKEND)) {
    throw new Error(`${HTTP_BACKEND} is missing: install git on the host (apt-get install -y git)`);
  }
}

export async function startGitServer(
  host: string,
  root: string,
  credentials: { username: string; password: string },
): Promise<TestGitServer> {
  checkHttpBackend();
  const expected = `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;
  const authAttempts = { ok: 0, refused: 0 };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    let remoteUser = '';
    if (url.pathname.startsWith('/private')) {
      const given = req.headers.authorization;
      if (given !== expected) {
        if (given) authAttempts.refused++;
        res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="shoal-test"' });
        res.end('authentication required\n');
        return;
      }
      authAttempts.ok++;
      remoteUser = credentials.username;
    }
    const env: Record<string, string | undefined> = {
      PATH: process.env.PATH,
      HOME: root,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      REQUEST_METHOD: req.method ?? 'GET',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      REMOTE_ADDR: req.socket.remoteAddress ?? '',
      REMOTE_USER: remoteUser,
      GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
      HTTP_CONTENT_ENCODING: String(req.headers['content-encoding'] ?? ''),
    };
    if (req.headers['content-length']) env.CONTENT_LENGTH = req.headers['content-length'];
    const cgi = spawn(HTTP_BACKEND, [], { env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'ignore'] });
    req.pipe(cgi.stdin);
    const chunks: Buffer[] = [];
    cgi.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    cgi.on('close', () => {
      const out = Buffer.concat(chunks);
      let split = out.indexOf('\r\n\r\n');
      let gap = 4;
      if (split === -1) {
        split = out.indexOf('\n\n');
        gap = 2;
      }
      if (split === -1) {
        res.writeHead(502).end();
        return;
      }
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of out.subarray(0, split).toString('latin1').split(/\r?\n/)) {
        const colon = line.indexOf(':');
        if (colon === -1) continue;
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else headers[name] = value;
      }
      res.writeHead(status, headers);
      res.end(out.subarray(split + gap));
    });
  });
  const port = await listenOnFreePort(server, host);
  return {
    url: `http://${host}:${port}`,
    root,
    authAttempts,
    close: () => closeServer(server),
  };
}

/** A server that accepts connections and never answers: a clone from it hangs until killed. */
export async function startHangingServer(host: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(() => {
    /* never respond */
  });
  const port = await listenOnFreePort(server, host);
  return {
    url: `http://${host}:${port}`,
    close: () => closeServer(server),
  };
}

export interface FixtureRepos {
  root: string;
  /** main: c1 ← c2 ← c3; dev: c3 ← d1. */
  shas: { c1: string; c2: string; c3: string; d1: string };
  /** A host working clone of private.git, for pushing from "elsewhere". */
  hostClone: string;
}

/** Creates public.git and private.git (the same history) in a new temp directory. */
export function createFixtureRepos(): FixtureRepos {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-git-fixture-'));
  const work = path.join(root, 'work');
  fs.mkdirSync(work);
  hostGit(work, ['init', '-q', '-b', 'main']);
  const commit = (file: string, content: string, message: string) => {
    fs.writeFileSync(path.join(work, file), content);
    hostGit(work, ['add', '--', file]);
    hostGit(work, ['commit', '-q', '-m', message]);
    return hostGit(work, ['rev-parse', 'HEAD']);
  };
  const c1 = commit('README.md', 'hello\n', 'first');
  const c2 = commit('README.md', 'hello\nworld\n', 'second');
  const c3 = commit('notes.txt', 'one\ntwo\nthree\n', 'third');
  hostGit(work, ['checkout', '-q', '-b', 'dev']);
  const d1 = commit('dev.txt', 'dev work\n', 'dev commit');
  hostGit(work, ['checkout', '-q', 'main']);
  for (const name of ['public.git', 'private.git']) hostGit(root, ['clone', '-q', '--bare', work, name]);
  const hostClone = path.join(root, 'host-clone');
  hostGit(root, ['clone', '-q', path.join(root, 'private.git'), hostClone]);
  return { root, shas: { c1, c2, c3, d1 }, hostClone };
}

/** Listens on a free port of `host` and answers with it. */
async function listenOnFreePort(server: http.Server, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

/** Closes the server, cutting open connections instead of waiting for them. */
function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
