import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxCa } from './ca';
import { compilePolicy, type CompiledPolicy } from './policy';
import { EgressProxy, type EgressSession } from './proxy';
import { parseHostsOverride, UpstreamResolver } from './resolver';

/**
 * The proxy on loopback, with local upstream servers standing in for real domains (through the
 * hosts override). The client plays the sandbox: its source address is 127.0.0.1.
 */
const SECRET = 'Bearer injected-secret-value';
let upstreamCa: SandboxCa;
let sandboxCa: SandboxCa;
let plainUpstream: http.Server;
let tlsUpstream: https.Server;
let proxy: EgressProxy;
let ports: { httpPort: number; tlsPort: number };
const seen: Array<{ host?: string; headers: http.IncomingHttpHeaders }> = [];
let policy: CompiledPolicy;

function session(): EgressSession {
  return { sandboxId: 'sbx-proxytest0001', policy, ca: async () => sandboxCa };
}

const echo = (req: http.IncomingMessage, res: http.ServerResponse) => {
  seen.push({ host: req.headers.host, headers: req.headers });
  res.end(`hello from ${req.headers.host}`);
};

beforeAll(async () => {
  upstreamCa = await SandboxCa.create('test-upstream-ca');
  sandboxCa = await SandboxCa.create('sbx-proxytest0001');
  plainUpstream = http.createServer(echo);
  tlsUpstream = https.createServer(
    {
      SNICallback: (name, callback) =>
        upstreamCa.contextFor(name).then(
          (context) => callback(null, context),
          (error) => callback(error),
        ),
    },
    echo,
  );
  await new Promise<void>((resolve) => plainUpstream.listen(0, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => tlsUpstream.listen(0, '127.0.0.1', resolve));
  const plainPort = (plainUpstream.address() as AddressInfo).port;
  const tlsPort = (tlsUpstream.address() as AddressInfo).port;
  const resolver = new UpstreamResolver(
    parseHostsOverride(
      `http-echo.test=127.0.0.1:${plainPort},tls-echo.test=127.0.0.1:${tlsPort},tunnel.test=127.0.0.1:${tlsPort}`,
    ),
  );
  proxy = new EgressProxy((address) => (address === '127.0.0.1' ? session() : undefined), resolver, {
    extraCa: upstreamCa.certPem,
  });
  ports = await proxy.start('127.0.0.1');
});

afterAll(async () => {
  await proxy?.stop();
  plainUpstream?.close();
  tlsUpstream?.close();
});

function plainRequest(
  headers: Record<string, string>,
): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: ports.httpPort, path: '/x', headers, agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

function tlsRequest(
  servername: string,
  ca: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; issuer: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port: ports.tlsPort,
        servername,
        ca,
        path: '/y',
        headers: { host: servername, ...headers },
        agent: false,
      },
      (res) => {
        const cn = (res.socket as tls.TLSSocket).getPeerCertificate().issuer?.CN ?? '';
        const issuer = Array.isArray(cn) ? cn.join(',') : cn;
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body, issuer }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('EgressProxy', () => {
  beforeAll(() => {
    policy = compilePolicy({
      mode: 'custom',
      allow_domains: ['tunnel.test'],
      transforms: [
        {
          domain: 'http-echo.test',
          inject_headers: { Authorization: SECRET },
          strip_headers: ['X-Remove-Me'],
        },
        { domain: 'tls-echo.test', inject_headers: { 'X-Api-Key': SECRET } },
      ],
    });
  });

  it('forwards plain HTTP for an allowed name, stripping then injecting headers', async () => {
    seen.length = 0;
    const response = await plainRequest({
      host: 'http-echo.test',
      authorization: 'what-the-sandbox-sent',
      'x-remove-me': 'gone',
      'x-keep': 'kept',
    });
    expect(response.status).toBe(200);
    expect(response.body).toBe('hello from http-echo.test');
    expect(seen).toHaveLength(1);
    expect(seen[0].headers.authorization).toBe(SECRET);
    expect(seen[0].headers['x-remove-me']).toBeUndefined();
    expect(seen[0].headers['x-keep']).toBe('kept');
  });

  it('answers 403 for a name the policy does not list or an address as Host, 400 for garbage', async () => {
    seen.length = 0;
    const denied = await plainRequest({ host: 'example.com' });
    expect(denied.status).toBe(403);
    expect(denied.headers['x-shoal-egress']).toBe('denied');
    expect(denied.body).toContain("'example.com' is not allowed");
    const metadata = await plainRequest({ host: '169.254.169.254' });
    expect(metadata.status).toBe(403);
    expect(metadata.body).toContain('allow_cidrs');
    expect((await plainRequest({ host: 'not a host' })).status).toBe(400);
    expect(seen).toHaveLength(0);
  });

  it('terminates TLS for a transform domain with the sandbox CA and injects upstream over verified TLS', async () => {
    seen.length = 0;
    const response = await tlsRequest('tls-echo.test', sandboxCa.certPem, { 'x-api-key': 'sandbox-value' });
    expect(response.status).toBe(200);
    expect(response.issuer).toBe('Shoal egress CA sbx-proxytest0001');
    expect(seen[0].headers['x-api-key']).toBe(SECRET);
  });

  it('refuses a request inside terminated TLS for another host than the SNI name', async () => {
    const response = await tlsRequest('tls-echo.test', sandboxCa.certPem, { host: 'tunnel.test' });
    expect(response.status).toBe(421);
  });

  it('tunnels other allowed TLS untouched: the client sees the upstream’s own certificate', async () => {
    seen.length = 0;
    const response = await tlsRequest('tunnel.test', upstreamCa.certPem, { 'x-api-key': 'sandbox-value' });
    expect(response.status).toBe(200);
    expect(response.issuer).toBe('Shoal egress CA test-upstream-ca');
    expect(seen[0].headers['x-api-key']).toBe('sandbox-value');
  });

  it('refuses TLS for a name the policy does not list with an access_denied alert', async () => {
    await expect(tlsRequest('example.com', upstreamCa.certPem)).rejects.toThrow(/access denied/i);
  });

  it('closes an open tunnel when a policy change no longer allows its name', async () => {
    const socket = tls.connect({
      host: '127.0.0.1',
      port: ports.tlsPort,
      servername: 'tunnel.test',
      ca: upstreamCa.certPem,
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('secureConnect', resolve);
      socket.once('error', reject);
    });
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => undefined);
    const before = policy;
    policy = compilePolicy({ mode: 'custom', allow_domains: ['other.test'] });
    try {
      proxy.policyChanged('sbx-proxytest0001', policy);
      await closed;
      expect(socket.destroyed).toBe(true);
    } finally {
      policy = before;
    }
  });

  it('verifies upstream TLS: an upstream certificate nobody trusts is a 502, not a silent pass', async () => {
    const strict = new EgressProxy(
      (address) => (address === '127.0.0.1' ? session() : undefined),
      new UpstreamResolver(
        parseHostsOverride(`tls-echo.test=127.0.0.1:${(tlsUpstream.address() as AddressInfo).port}`),
      ),
    );
    const strictPorts = await strict.start('127.0.0.1');
    try {
      const status = await new Promise<number>((resolve, reject) => {
        https
          .get(
            {
              host: '127.0.0.1',
              port: strictPorts.tlsPort,
              servername: 'tls-echo.test',
              ca: sandboxCa.certPem,
              headers: { host: 'tls-echo.test' },
              agent: false,
            },
            (res) => {
              res.resume();
              resolve(res.statusCode!);
            },
          )
          .on('error', reject);
      });
      expect(status).toBe(502);
    } finally {
      await strict.stop();
    }
  });

  it('caps the connections one sandbox may hold open', async () => {
    const capped = new EgressProxy(() => session(), new UpstreamResolver(), { maxConnectionsPerAddress: 2 });
    const cappedPorts = await capped.start('127.0.0.1');
    const sockets = [0, 1, 2].map(() => net.connect(cappedPorts.httpPort, '127.0.0.1'));
    try {
      const closed = await Promise.all(
        sockets.map(
          (socket) =>
            new Promise<boolean>((resolve) => {
              socket.on('error', () => undefined);
              socket.once('close', () => resolve(true));
              setTimeout(() => resolve(false), 1000);
            }),
        ),
      );
      expect(closed.filter(Boolean)).toHaveLength(1);
    } finally {
      for (const socket of sockets) socket.destroy();
      await capped.stop();
    }
  });

  it('serves nobody whose address has no custom policy', async () => {
    const other = new EgressProxy(() => undefined, new UpstreamResolver());
    const otherPorts = await other.start('127.0.0.1');
    try {
      const response = await new Promise<number>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port: otherPorts.httpPort, headers: { host: 'http-echo.test' } }, (res) => {
            res.resume();
            resolve(res.statusCode!);
          })
          .on('error', reject);
      });
      expect(response).toBe(403);
    } finally {
      await other.stop();
    }
  });
});
