import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import type { Duplex } from 'node:stream';
import { createProxyServer } from 'http-proxy-3';
import { getExtensionData, readTlsClientHello } from 'read-tls-client-hello';
import { forbiddenReason } from './addresses';
import type { SandboxCa } from './ca';
import { applyTransform, normaliseHost, type CompiledPolicy } from './policy';
import { EgressRefused, type UpstreamResolver } from './resolver';

/** What the proxy knows about the sandbox behind a source address. */
export interface EgressSession {
  sandboxId: string;
  policy: CompiledPolicy;
  ca(): Promise<SandboxCa>;
}

export type SessionFor = (address: string) => EgressSession | undefined;

export interface ProxyOptions {
  /** Extra PEM certificates trusted for upstream TLS, beside Node's roots (test hook). */
  extraCa?: string;
  /** Open client connections one sandbox may hold (default 256). */
  maxConnectionsPerAddress?: number;
}

/** A fatal TLS alert record, access_denied (49): the client reports a refusal, not a broken pipe. */
const TLS_ACCESS_DENIED = Buffer.from([0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x31]);
const HELLO_TIMEOUT_MS = 15_000;
const MAX_CONNECTIONS_PER_ADDRESS = 256;
/** Pooled upstream connections of a superseded policy are closed at the latest after this. */
const RETIRED_AGENT_MAX_MS = 10 * 60_000;

type Kind = 'http' | 'mitm' | 'tunnel';
interface Tracked {
  host: string;
  kind: Kind;
  /** The upstream address of a tunnel (HTTP(S) upstreams live in the per-sandbox agents). */
  address?: string;
  sockets: Duplex[];
}

interface MitmMeta {
  address: string;
  sandboxId: string;
  sni: string;
}

function deny(res: http.ServerResponse, status: number, message: string): void {
  if (res.headersSent) return void res.destroy();
  const body = `Shoal egress: ${message}\n`;
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'x-shoal-egress': 'denied',
    connection: 'close',
  });
  res.end(body);
}

function denyUpgrade(socket: Duplex, status: number, message: string): void {
  const body = `Shoal egress: ${message}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: text/plain\r\nx-shoal-egress: denied\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** Absolute-form request targets (`GET http://host/…`) must name the same host as the Host header. */
function targetMatchesHost(url: string | undefined, host: string): boolean {
  if (!url || url.startsWith('/')) return true;
  try {
    return normaliseHost(new URL(url).host) === host;
  } catch {
    return false;
  }
}

/**
 * The egress proxy for sandboxes under a custom policy. Their tcp 80 and 443 is redirected here
 * by the host firewall (a transparent proxy: the sandbox needs no proxy settings).
 *
 * - Port 80: an HTTP server. Each request's Host is checked against the policy; allowed ones are
 *   forwarded by http-proxy-3, with the transform for the name applied to the headers.
 * - Port 443: the TLS ClientHello is read (read-tls-client-hello) for the SNI name. A name with a
 *   transform is terminated with a certificate from the sandbox's own CA and each request is
 *   forwarded over verified TLS with the transform applied; any other allowed name is an opaque
 *   tunnel; anything else gets a TLS access_denied alert.
 *
 * Upstream connections always go to an address the proxy resolved itself and screened
 * (`UpstreamResolver.upstream`), never to the address the sandbox dialled.
 */
export class EgressProxy {
  private readonly proxy = createProxyServer({ xfwd: false, secure: true, proxyTimeout: 300_000 });
  private readonly plainServer: http.Server;
  private readonly mitmServer: http.Server;
  private readonly tlsServer: net.Server;
  private readonly mitmMeta = new WeakMap<object, MitmMeta>();
  private readonly agents = new Map<string, { http: http.Agent; https: https.Agent }>();
  private readonly tracked = new Map<string, Map<Duplex, Tracked>>();
  private readonly sockets = new Set<net.Socket>();
  private readonly perAddress = new Map<string, number>();
  /** Built once: a context made per connection would parse the whole root store every time. */
  private readonly upstreamContext: tls.SecureContext | undefined;

  constructor(
    private readonly sessionFor: SessionFor,
    private readonly resolver: UpstreamResolver,
    private readonly options: ProxyOptions = {},
  ) {
    this.plainServer = http.createServer((req, res) => void this.onRequest(req, res, 'http'));
    this.plainServer.on('upgrade', (req, socket, head) => void this.onUpgrade(req, socket, head, 'http'));
    this.mitmServer = http.createServer((req, res) => void this.onRequest(req, res, 'https'));
    this.mitmServer.on('upgrade', (req, socket, head) => void this.onUpgrade(req, socket, head, 'https'));
    this.tlsServer = net.createServer((socket) => void this.onTlsConnection(socket));
    const cap = options.maxConnectionsPerAddress ?? MAX_CONNECTIONS_PER_ADDRESS;
    for (const server of [this.plainServer, this.tlsServer]) {
      server.on('connection', (socket: net.Socket) => {
        // A sandbox cannot exhaust Shoal's file descriptors: past the cap its new connections are dropped.
        const address = socket.remoteAddress ?? '';
        const open = (this.perAddress.get(address) ?? 0) + 1;
        this.perAddress.set(address, open);
        this.sockets.add(socket);
        socket.once('close', () => {
          this.sockets.delete(socket);
          const left = (this.perAddress.get(address) ?? 1) - 1;
          if (left > 0) this.perAddress.set(address, left);
          else this.perAddress.delete(address);
        });
        if (open > cap) socket.destroy();
      });
    }
    this.proxy.on('error', () => undefined); // every call passes its own callback
    this.upstreamContext = options.extraCa
      ? tls.createSecureContext({ ca: [...tls.rootCertificates, options.extraCa] })
      : undefined;
  }

  async start(host: string): Promise<{ httpPort: number; tlsPort: number }> {
    const listen = (server: net.Server) =>
      new Promise<number>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, host, () => {
          server.off('error', reject);
          resolve((server.address() as net.AddressInfo).port);
        });
      });
    return { httpPort: await listen(this.plainServer), tlsPort: await listen(this.tlsServer) };
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    for (const id of [...this.agents.keys()]) this.forgetSandbox(id);
    await Promise.all(
      [this.plainServer, this.tlsServer].map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
    );
  }

  // ---- policy changes ---------------------------------------------------------------------

  /**
   * A sandbox's policy changed: pooled upstream connections are retired (they were screened
   * against the old CIDRs; requests in flight finish), and open connections the new policy would
   * not allow are closed.
   */
  policyChanged(sandboxId: string, policy: CompiledPolicy): void {
    this.dropAgents(sandboxId);
    for (const entry of this.tracked.get(sandboxId)?.values() ?? []) {
      const transform = policy.transformFor(entry.host) !== undefined;
      const stillOk =
        policy.allowsHost(entry.host) &&
        (entry.kind === 'http' || (entry.kind === 'mitm') === transform) &&
        (!entry.address || forbiddenReason(entry.address, policy.cidrs) === null);
      if (!stillOk) for (const socket of entry.sockets) socket.destroy();
    }
  }

  /** The sandbox is gone (or left the custom policy): close everything it had open. */
  forgetSandbox(sandboxId: string): void {
    this.dropAgents(sandboxId, true);
    for (const entry of this.tracked.get(sandboxId)?.values() ?? [])
      for (const socket of entry.sockets) socket.destroy();
    this.tracked.delete(sandboxId);
  }

  /**
   * New requests get new agents. With `now`, the old ones are closed at once (the sandbox is
   * gone); otherwise requests in flight finish first and only then are the pooled sockets closed.
   */
  private dropAgents(sandboxId: string, now = false): void {
    const agents = this.agents.get(sandboxId);
    if (!agents) return;
    this.agents.delete(sandboxId);
    for (const agent of [agents.http, agents.https]) {
      const idle = () => Object.values(agent.sockets).every((list) => !list || list.length === 0);
      if (now || idle()) {
        agent.destroy();
        continue;
      }
      agent.on('free', () => {
        if (idle()) agent.destroy();
      });
      setTimeout(() => agent.destroy(), RETIRED_AGENT_MAX_MS).unref();
    }
  }

  /** Remembers what a client connection is for (updated per request on keep-alive connections). */
  private track(sandboxId: string, entry: Tracked): void {
    let bySocket = this.tracked.get(sandboxId);
    if (!bySocket) this.tracked.set(sandboxId, (bySocket = new Map()));
    const key = entry.sockets[0];
    const known = bySocket.get(key);
    if (known) {
      known.host = entry.host;
      return;
    }
    bySocket.set(key, entry);
    key.once('close', () => {
      bySocket.delete(key);
      if (bySocket.size === 0 && this.tracked.get(sandboxId) === bySocket) this.tracked.delete(sandboxId);
    });
  }

  /**
   * Pooled upstream agents for one sandbox. Their `lookup` is the screened resolver, so even a
   * pooled connection was opened to an address the policy allows.
   */
  private agentsFor(session: EgressSession): { http: http.Agent; https: https.Agent } {
    let agents = this.agents.get(session.sandboxId);
    if (!agents) {
      const cidrs = session.policy.cidrs;
      const lookup: net.LookupFunction = (hostname, options, callback) => {
        this.resolver.upstream(hostname.toLowerCase(), 0, cidrs).then(
          ({ address, family }) =>
            options.all ? callback(null, [{ address, family }]) : callback(null, address, family),
          (error: Error) => callback(Object.assign(error, { code: 'EEGRESSREFUSED' }), '', 4),
        );
      };
      const common = { keepAlive: true, maxFreeSockets: 16, noDelay: true, lookup };
      agents = {
        http: new http.Agent(common),
        https: new https.Agent({ ...common, ...(this.upstreamContext ? { secureContext: this.upstreamContext } : {}) }),
      };
      this.agents.set(session.sandboxId, agents);
    }
    return agents;
  }

  // ---- HTTP (port 80, and requests inside terminated TLS) ---------------------------------

  /** The session and host a request is for, or a refusal (status, message). */
  private admit(
    req: http.IncomingMessage,
    scheme: 'http' | 'https',
  ): { session: EgressSession; host: string } | { status: number; message: string } {
    const meta = scheme === 'https' ? this.mitmMeta.get(req.socket) : undefined;
    const address = meta?.address ?? req.socket.remoteAddress ?? '';
    const session = this.sessionFor(address);
    if (!session || (meta && meta.sandboxId !== session.sandboxId)) {
      return { status: 403, message: 'this address has no custom network policy' };
    }
    const host = normaliseHost(req.headers.host);
    if (!host) {
      const raw = (req.headers.host ?? '').replace(/:\d+$/, '');
      if (net.isIP(raw.replace(/^\[|\]$/g, ''))) {
        return {
          status: 403,
          message: `'${raw}' is an address: allow_domains holds names; addresses belong in allow_cidrs`,
        };
      }
      return { status: 400, message: 'the request has no usable Host header' };
    }
    if (!targetMatchesHost(req.url, host)) return { status: 400, message: 'the request target and Host disagree' };
    if (meta && host !== meta.sni) {
      return { status: 421, message: `this connection is for '${meta.sni}', not '${host}'` };
    }
    if (!session.policy.allowsHost(host)) {
      return { status: 403, message: `'${host}' is not allowed by this sandbox's network policy` };
    }
    return { session, host };
  }

  private async onRequest(req: http.IncomingMessage, res: http.ServerResponse, scheme: 'http' | 'https') {
    const admitted = this.admit(req, scheme);
    if ('status' in admitted) return deny(res, admitted.status, admitted.message);
    const { session, host } = admitted;
    let port: number;
    try {
      // Resolved (and screened) here for a clear answer; the agent's lookup then hits the cache.
      port = (await this.resolver.upstream(host, scheme === 'https' ? 443 : 80, session.policy.cidrs)).port;
    } catch (error) {
      if (error instanceof EgressRefused) return deny(res, error.status, error.message);
      return deny(res, 502, `'${host}' could not be reached`);
    }
    req.headers = applyTransform(req.headers, session.policy.transformFor(host));
    // Hop-by-hop (RFC 9110 §7.6.1): the sandbox's `Connection: close` must not end the pooled upstream connection.
    for (const name of ['connection', 'keep-alive', 'proxy-connection']) delete req.headers[name];
    if (scheme === 'http') this.track(session.sandboxId, { host, kind: 'http', sockets: [req.socket] });
    const agents = this.agentsFor(session);
    this.proxy.web(
      req,
      res,
      { target: { protocol: `${scheme}:`, host, port }, agent: scheme === 'https' ? agents.https : agents.http },
      (error: Error) =>
        deny(res, 502, `upstream '${host}' failed: ${(error as NodeJS.ErrnoException).code ?? error.message}`),
    );
  }

  private async onUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer, scheme: 'http' | 'https') {
    socket.on('error', () => socket.destroy());
    const admitted = this.admit(req, scheme);
    if ('status' in admitted) return denyUpgrade(socket, admitted.status, admitted.message);
    const { session, host } = admitted;
    let port: number;
    try {
      port = (await this.resolver.upstream(host, scheme === 'https' ? 443 : 80, session.policy.cidrs)).port;
    } catch (error) {
      return denyUpgrade(
        socket,
        502,
        error instanceof EgressRefused ? error.message : `'${host}' could not be reached`,
      );
    }
    req.headers = applyTransform(req.headers, session.policy.transformFor(host));
    if (scheme === 'http') this.track(session.sandboxId, { host, kind: 'http', sockets: [socket] });
    const agents = this.agentsFor(session);
    this.proxy.ws(
      req,
      socket,
      head,
      {
        target: { protocol: scheme === 'https' ? 'wss:' : 'ws:', host, port },
        agent: scheme === 'https' ? agents.https : agents.http,
      },
      () => socket.destroy(),
    );
  }

  // ---- TLS (port 443) -----------------------------------------------------------------------

  private async onTlsConnection(socket: net.Socket): Promise<void> {
    socket.on('error', () => socket.destroy());
    socket.setNoDelay(true); // small TLS records must not wait for delayed ACKs (Nagle)
    const address = socket.remoteAddress ?? '';
    if (!this.sessionFor(address)) return void socket.destroy();
    socket.setTimeout(HELLO_TIMEOUT_MS, () => socket.destroy());
    let sni: string | null;
    try {
      const hello = await readTlsClientHello(socket);
      sni = normaliseHost(getExtensionData(hello, 'sni')?.serverName);
    } catch {
      return void socket.destroy(); // not TLS
    }
    socket.setTimeout(0);
    // Looked up again: the policy may have changed while the hello arrived.
    const session = this.sessionFor(address);
    if (!session || !sni || !session.policy.allowsHost(sni)) return void socket.end(TLS_ACCESS_DENIED);
    if (session.policy.transformFor(sni)) await this.terminate(socket, session, address, sni);
    else await this.tunnel(socket, session, sni);
  }

  /** An opaque tunnel to the screened address of the SNI name. */
  private async tunnel(socket: net.Socket, session: EgressSession, sni: string): Promise<void> {
    let upstream;
    try {
      upstream = await this.resolver.upstream(sni, 443, session.policy.cidrs);
    } catch {
      return void socket.end(TLS_ACCESS_DENIED);
    }
    const remote = net.connect({ host: upstream.address, port: upstream.port });
    const close = () => {
      socket.destroy();
      remote.destroy();
    };
    remote.on('error', close);
    remote.on('close', close);
    socket.on('close', close);
    this.track(session.sandboxId, { host: sni, kind: 'tunnel', address: upstream.address, sockets: [socket, remote] });
    remote.once('connect', () => {
      remote.setNoDelay(true);
      socket.pipe(remote);
      remote.pipe(socket);
    });
  }

  /** TLS terminated with the sandbox CA; requests go to the MITM HTTP server, then upstream over TLS. */
  private async terminate(socket: net.Socket, session: EgressSession, address: string, sni: string): Promise<void> {
    let context: tls.SecureContext;
    try {
      context = await (await session.ca()).contextFor(sni);
    } catch {
      return void socket.end(TLS_ACCESS_DENIED);
    }
    const secure = new tls.TLSSocket(socket, { isServer: true, secureContext: context, ALPNProtocols: ['http/1.1'] });
    secure.on('error', () => secure.destroy());
    this.mitmMeta.set(secure, { address, sandboxId: session.sandboxId, sni });
    this.track(session.sandboxId, { host: sni, kind: 'mitm', sockets: [socket, secure] });
    this.mitmServer.emit('connection', secure);
  }
}
