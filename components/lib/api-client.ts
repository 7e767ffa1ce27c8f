/**
 * The browser's only way to Shoal's API: the same `/api/v1` routes API clients call, with the
 * next-auth session cookie instead of a key. State-changing calls always send a JSON (or
 * octet-stream / multipart) content type, which the server's CSRF check requires.
 */
import type {
  ApiKey,
  CommitResult,
  CreatedApiKey,
  FileInfo,
  GitResult,
  NetworkPolicy,
  PtySession,
  Sandbox,
  Snapshot,
} from './types';

const BASE = '/api/v1';

/** An API answer other than 2xx, with the server's message made readable. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fieldErrors: { field: string; error: string }[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Text for a toast or an inline message, whatever was thrown. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

export function readableError(status: number, body: unknown): ApiError {
  const data = (body ?? {}) as { message?: unknown; errors?: { field: string; error: string }[] };
  let message = typeof data.message === 'string' && data.message ? data.message : `Request failed (HTTP ${status})`;
  const fields = Array.isArray(data.errors) ? data.errors : [];
  if (fields.length > 0) message = `${message}: ${fields.map((f) => `${f.field} ${f.error}`).join('; ')}`;
  if (status === 429) message = `${message} (try again shortly)`;
  return new ApiError(status, message, fields);
}

type Body = { json: unknown } | { raw: BodyInit; type: string } | { form: FormData } | undefined;

let onUnauthorized: (() => void) | null = () => {
  if (typeof window !== 'undefined' && !window.location.pathname.startsWith('/login')) {
    window.location.replace(`/login?next=${encodeURIComponent(window.location.pathname)}`);
  }
};

/** Tests and the sign-in page replace what a 401 does (default: go to the sign-in page). */
export function setUnauthorizedHandler(handler: (() => void) | null): void {
  onUnauthorized = handler;
}

async function send(method: string, path: string, body?: Body, signal?: AbortSignal): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json' };
  let payload: BodyInit | undefined;
  if (body && 'json' in body) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body.json);
  } else if (body && 'raw' in body) {
    headers['content-type'] = body.type;
    payload = body.raw;
  } else if (body && 'form' in body) {
    payload = body.form; // the browser sets multipart/form-data with its boundary
  } else if (method !== 'GET' && method !== 'DELETE') {
    headers['content-type'] = 'application/json';
    payload = '{}';
  }
  let response: Response;
  try {
    response = await fetch(`${BASE}${path}`, { method, headers, body: payload, credentials: 'same-origin', signal });
  } catch (error) {
    if ((error as Error)?.name === 'AbortError') throw error;
    throw new ApiError(0, 'Shoal is unreachable; check that the server is running');
  }
  if (!response.ok) {
    let parsed: unknown = null;
    try {
      parsed = await response.json();
    } catch {
      parsed = null;
    }
    if (response.status === 401) onUnauthorized?.();
    throw readableError(response.status, parsed);
  }
  return response;
}

async function call<T>(method: string, path: string, body?: Body, signal?: AbortSignal): Promise<T> {
  const response = await send(method, path, body, signal);
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

const post = <T>(path: string, json: unknown = {}) => call<T>('POST', path, { json });
const enc = encodeURIComponent;

export interface RestoreOptions {
  snapshot_name: string;
  timeout?: number;
  auto_pause?: boolean;
  network_policy?: NetworkPolicy;
}

export interface PtyCreateOptions {
  id?: string;
  cwd?: string;
  cols?: number;
  rows?: number;
  envs?: Record<string, string>;
  lazy_start?: boolean;
}

export interface CloneOptions {
  url: string;
  path: string;
  branch?: string;
  depth?: number;
  username?: string;
  password?: string;
}

function sandboxPath(id: string, rest = ''): string {
  return `/sandbox/${enc(id)}${rest}`;
}

export const api = {
  snapshots: {
    list: () => call<{ items: Snapshot[]; total_items: number }>('GET', '/snapshots?page-size=200'),
    restore: (options: RestoreOptions) => post<Sandbox>('/snapshot/restore', options),
    remove: (id: string) => call<void>('DELETE', `/snapshot/${enc(id)}`),
  },
  sandboxes: {
    list: () => call<{ items: Sandbox[]; total_items: number }>('GET', '/sandboxes?page-size=200'),
    get: (id: string) => call<Sandbox>('GET', sandboxPath(id)),
    remove: (id: string) => call<void>('DELETE', sandboxPath(id)),
    pause: (id: string) => post<Sandbox>(sandboxPath(id, '/pause')),
    resume: (id: string) => post<Sandbox>(sandboxPath(id, '/resume')),
    stop: (id: string) => post<Sandbox>(sandboxPath(id, '/stop')),
    start: (id: string) => post<Sandbox>(sandboxPath(id, '/start')),
    snapshot: (id: string, name?: string) => post<Snapshot>(sandboxPath(id, '/snapshot/create'), name ? { name } : {}),
  },
  pty: {
    list: (id: string) => call<{ items: PtySession[] }>('GET', sandboxPath(id, '/pty')),
    get: (id: string, sid: string) => call<PtySession>('GET', sandboxPath(id, `/pty/${enc(sid)}`)),
    create: (id: string, options: PtyCreateOptions = {}) => post<PtySession>(sandboxPath(id, '/pty'), options),
    remove: (id: string, sid: string) => call<void>('DELETE', sandboxPath(id, `/pty/${enc(sid)}`)),
    resize: (id: string, sid: string, cols: number, rows: number) =>
      post<PtySession>(sandboxPath(id, `/pty/${enc(sid)}/resize`), { cols, rows }),
    /** The WebSocket address (same origin: the session cookie authenticates it). */
    connectUrl: (id: string, sid: string, offset: number) => {
      const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
      return `${scheme}//${window.location.host}${BASE}${sandboxPath(id, `/pty/${enc(sid)}/connect`)}?offset=${offset}`;
    },
  },
  fs: {
    ls: (id: string, path: string) => post<{ items: FileInfo[] }>(sandboxPath(id, '/filesystem/ls'), { path }),
    stat: (id: string, path: string) => post<FileInfo>(sandboxPath(id, '/filesystem/stat'), { path }),
    exists: (id: string, path: string) => post<{ exists: boolean }>(sandboxPath(id, '/filesystem/exists'), { path }),
    glob: (id: string, path: string, pattern?: string, exclude?: string[]) =>
      post<{ items: string[]; truncated?: boolean }>(sandboxPath(id, '/filesystem/glob'), { path, pattern, exclude }),
    readFile: async (id: string, path: string, limit?: number): Promise<Uint8Array> => {
      const response = await send('POST', sandboxPath(id, '/filesystem/read-file'), {
        json: limit === undefined ? { path } : { path, limit },
      });
      return new Uint8Array(await response.arrayBuffer());
    },
    writeFile: (id: string, path: string, data: BodyInit) =>
      call<void>('POST', sandboxPath(id, `/filesystem/write-file?path=${enc(path)}`), {
        raw: data,
        type: 'application/octet-stream',
      }),
    /** Several files in one request (upload): multipart, one field per destination path. */
    writeFiles: (id: string, files: { path: string; data: Blob }[]) => {
      const form = new FormData();
      for (const file of files) form.append(file.path, file.data, file.path.split('/').pop());
      return call<void>('POST', sandboxPath(id, '/filesystem/write-files'), { form });
    },
    mkdir: (id: string, path: string) => post<void>(sandboxPath(id, '/filesystem/mkdir'), { path, recursive: true }),
    remove: (id: string, path: string, recursive: boolean) =>
      post<void>(sandboxPath(id, '/filesystem/delete'), { path, recursive }),
    move: (id: string, src: string, dst: string) =>
      post<void>(sandboxPath(id, '/filesystem/move'), { src_path: src, dst_path: dst }),
  },
  git: {
    status: (id: string, path: string) => post<GitResult>(sandboxPath(id, '/git/status'), { path }),
    add: (id: string, path: string, files: string[]) => post<GitResult>(sandboxPath(id, '/git/add'), { path, files }),
    reset: (id: string, path: string, files?: string[]) =>
      post<GitResult>(sandboxPath(id, '/git/reset'), files ? { path, files } : { path }),
    commit: (id: string, path: string, message: string, author?: { name: string; email: string }) =>
      post<CommitResult>(sandboxPath(id, '/git/commit'), {
        path,
        message,
        ...(author?.name ? { author: author.name } : {}),
        ...(author?.email ? { email: author.email } : {}),
      }),
    branches: (id: string, path: string) =>
      post<GitResult>(sandboxPath(id, '/git/branches'), { path, branch_type: 'local' }),
    checkoutBranch: (id: string, path: string, branch: string) =>
      post<GitResult>(sandboxPath(id, '/git/checkout-branch'), { path, branch }),
    /** `checkout-branch` with `create` (in the spec): makes the branch and switches to it. */
    createBranch: (id: string, path: string, name: string) =>
      post<GitResult>(sandboxPath(id, '/git/checkout-branch'), { path, branch: name, create: true }),
    diffUnstaged: (id: string, path: string) => post<GitResult>(sandboxPath(id, '/git/diff-unstaged'), { path }),
    diffStaged: (id: string, path: string) => post<GitResult>(sandboxPath(id, '/git/diff-staged'), { path }),
    log: (id: string, path: string, maxCount = 20) =>
      post<GitResult>(sandboxPath(id, '/git/log'), { path, max_count: maxCount }),
    show: (id: string, path: string, revision: string) =>
      post<GitResult>(sandboxPath(id, '/git/show'), { path, revision }),
    clone: (id: string, options: CloneOptions) => post<GitResult>(sandboxPath(id, '/git/clone'), options),
  },
  apiKeys: {
    list: () => call<{ items: ApiKey[] }>('GET', '/api-keys'),
    create: (name: string) => post<CreatedApiKey>('/api-keys', { name }),
    revoke: (keyId: string) => call<void>('DELETE', `/api-keys/${enc(keyId)}`),
  },
  account: {
    changePassword: (currentPassword: string, newPassword: string) =>
      post<void>('/account/password', { current_password: currentPassword, new_password: newPassword }),
  },
};

async function csrfToken(): Promise<string> {
  const response = await fetch('/api/auth/csrf', { credentials: 'same-origin' });
  const data = (await response.json()) as { csrfToken?: string };
  if (!data.csrfToken) throw new Error('Could not start a sign-in (no CSRF token)');
  return data.csrfToken;
}

/** next-auth's credentials sign-in, without its client bundle. Resolves false on wrong credentials. */
export async function signIn(email: string, password: string): Promise<boolean> {
  let response: Response;
  try {
    response = await fetch('/api/auth/callback/credentials', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-auth-return-redirect': '1' },
      body: new URLSearchParams({ email, password, csrfToken: await csrfToken(), json: 'true', callbackUrl: '/' }),
    });
  } catch {
    throw new ApiError(0, 'Shoal is unreachable; check that the server is running');
  }
  const data = (await response.json().catch(() => ({}))) as { url?: string };
  if (!response.ok || !data.url) return false;
  return !new URL(data.url, window.location.origin).searchParams.has('error');
}

export async function signOut(): Promise<void> {
  await fetch('/api/auth/signout', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-auth-return-redirect': '1' },
    body: new URLSearchParams({ csrfToken: await csrfToken(), json: 'true', callbackUrl: '/login' }),
  });
}
