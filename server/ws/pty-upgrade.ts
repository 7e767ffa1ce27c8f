import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { loadConfig } from '../config';
import { PermissionDenied } from '../errors';
import type { ServerFeature } from '../features';
import { errorResponse } from '../http/error-map';
import { authenticate } from '../http/principal';
import { RateLimiter } from '../http/rate-limit';
import { validate } from '../http/validation';
import { log } from '../log';
import { singleton } from '../registry';
import { ptyService } from '../services/pty';
import { controlFrame, MAX_INPUT_BYTES, parseClientFrame } from '../services/pty/frames';
import type { PtySessionHandle } from '../services/pty/session';
import { PTY_SUBPROTOCOL, ptyConnectQuery, type PtyConnectQuery } from '../spec/pty';
import { upgradeHandlers, type UpgradeHandler } from './upgrade-routes';

/** Paths arrive normalised by the custom server (`/v1/…` → `/api/v1/…`, no trailing slash). */
const CONNECT_PATH = /^\/api\/v1\/sandbox\/([^/]+)\/pty\/([^/]+)\/connect$/;
const PING_EVERY_MS = 30_000;

interface Connection {
  session: PtySessionHandle;
  alive: boolean;
}

const connections = new WeakMap<WebSocket, Connection>();

const wss = new WebSocketServer({
  noServer: true,
  // The framed protocol adds one type byte; larger frames are closed by ws with 1009.
  maxPayload: MAX_INPUT_BYTES + 1,
  perMessageDeflate: false,
  handleProtocols: (protocols) => (protocols.has(PTY_SUBPROTOCOL) ? PTY_SUBPROTOCOL : false),
});

/** The same limiter instance the HTTP routes use (shared through the registry). */
function rateLimiter(): RateLimiter {
  return singleton('http.rate-limiter', () => new RateLimiter(loadConfig().rateLimitPerMinute));
}

function header(request: IncomingMessage, name: string): string | null {
  const value = request.headers[name];
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Cookie-authenticated browsers must come from our own pages: the Origin host is the Host. */
function checkOrigin(request: IncomingMessage): void {
  const origin = header(request, 'origin');
  const host = header(request, 'x-forwarded-host') ?? header(request, 'host');
  let originHost: string | null = null;
  try {
    originHost = origin ? new URL(origin).host : null;
  } catch {
    originHost = null;
  }
  if (!originHost || originHost !== host) throw new PermissionDenied('Cross-origin WebSocket refused');
}

/** A refusal written as a plain HTTP answer on the socket, before any upgrade. */
function refuse(socket: Duplex, status: number, body: unknown, headers: Record<string, string>): void {
  if (socket.destroyed) return;
  const payload = JSON.stringify(body);
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(payload)}`,
    'Connection: close',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${payload}`);
  setTimeout(() => socket.destroy(), 1000).unref();
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

function onConnection(ws: WebSocket, session: PtySessionHandle, query: PtyConnectQuery): void {
  const framed = ws.protocol === PTY_SUBPROTOCOL;
  const connection: Connection = { session, alive: true };
  connections.set(ws, connection);
  ws.on('error', (error) => log.warn('terminal socket error', { session: session.id, error }));
  ws.on('pong', () => (connection.alive = true));
  ws.on('close', () => session.detach(ws));
  ws.on('message', (data, isBinary) => {
    const message = parseClientFrame(toBuffer(data), isBinary, framed);
    switch (message.kind) {
      case 'input':
        session.input(message.data);
        break;
      case 'resize':
        session.resize(message.cols, message.rows).catch((error) => {
          log.warn('terminal resize failed', { sandbox: session.sandboxId, session: session.id, error });
        });
        break;
      case 'too_large':
        session.detach(ws);
        ws.close(1009, 'Input frame over 64 KiB');
        break;
      case 'invalid':
        if (ws.readyState === ws.OPEN) ws.send(controlFrame({ type: 'error', message: message.message }));
        break;
    }
  });
  const replay = query.replay !== '0' && query.replay !== 'false';
  session.attach(ws, { framed, offset: query.offset, replay });
}

async function upgrade(
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  sandboxId: string,
  sid: string,
  search: URLSearchParams,
): Promise<void> {
  const requestId = randomUUID();
  try {
    const principal = await authenticate((name) => header(request, name));
    rateLimiter().check(principal.subject);
    if (principal.kind === 'session') checkOrigin(request);
    const query = validate(ptyConnectQuery, Object.fromEntries(search), 'query');
    const session = await ptyService().prepareConnect(principal.teamId, sandboxId, sid);
    if (socket.destroyed) return;
    wss.handleUpgrade(request, socket, head, (ws) => onConnection(ws, session, query));
  } catch (error) {
    const mapped = errorResponse(error, requestId);
    refuse(socket, mapped.status, mapped.body, { ...mapped.headers, 'x-request-id': requestId });
  }
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Marks an upgrade request this module answers. */

export const ptyUpgradeHandler: UpgradeHandler = (request, socket, head) => {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const match = CONNECT_PATH.exec(url.pathname);
  if (!match) return false;
  socket.on('error', () => undefined);
  void upgrade(request, socket, head, decode(match[1]), decode(match[2]), url.searchParams);
  return true;
};

let pinger: ReturnType<typeof setInterval> | null = null;

/** Registers the upgrade handler and pings every terminal socket every 30 s. */
export const ptyFeature: ServerFeature = {
  name: 'pty-websocket',
  start() {
    if (!upgradeHandlers.includes(ptyUpgradeHandler)) upgradeHandlers.push(ptyUpgradeHandler);
    pinger ??= setInterval(() => {
      for (const ws of wss.clients) {
        const connection = connections.get(ws);
        if (!connection) continue;
        if (!connection.alive) {
          connection.session.detach(ws);
          ws.terminate();
          continue;
        }
        connection.alive = false;
        try {
          ws.ping();
        } catch {
          // not open yet or already closing
        }
      }
    }, PING_EVERY_MS);
    pinger.unref();
  },
  async stop() {
    if (pinger) clearInterval(pinger);
    pinger = null;
    ptyService().shutdown();
    // Give the close frames a moment to leave, then drop whatever is left.
    for (let waited = 0; wss.clients.size > 0 && waited < 500; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    for (const ws of wss.clients) ws.terminate();
  },
};
