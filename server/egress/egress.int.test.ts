import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../spec/sandbox';
import { restoreRunning } from '../testing/sandbox-fixture';
import { eventually, startShoal, type ShoalServer } from '../testing/shoal-server';
import { SandboxCa } from './ca';

/**
 * Network egress against the real engine and the real host firewall. Test servers listen on
 * 0.0.0.0 (port 0) of this machine; the only outside destination is Debian's mirror, which this
 * machine can reach. Names under `.shoal.test` are mapped to the local servers through the
 * SHOAL_EGRESS_HOSTS_OVERRIDE test hook, and the local TLS server's CA is trusted for upstream
 * TLS through SHOAL_EGRESS_EXTRA_CA_FILE.
 */
const docker = new Docker();
const MIRROR_URL = 'http://deb.debian.org/debian/dists/bookworm/Release';
const HTTP_SECRET = 'Bearer http-secret-3f9c1e7a';
const TLS_SECRET = 'tls-secret-8b2d4c6e';

interface Seen {
  server: 'http' | 'tls';
  host?: string;
  path?: string;
  headers: http.IncomingHttpHeaders;
}
const seen: Seen[] = [];

let shoal: ShoalServer;
let tmpDir: string;
let httpServer: http.Server;
let tlsServer: https.Server;
let httpPort: number;
let tlsPort: number;
let testCa: SandboxCa;
let shoalPort: number;
/** The default sandbox bridge's gateway (172.18.0.1 here) and the egress bridge's. */
let sandboxesGateway: string;
let egressGateway: string;
/** A non-Docker address of this machine (its LAN address). */
let lanAddress: string | undefined;
let control: Sandbox;
/** deb.debian.org's address as this machine resolves it. */
let mirrorAddress: string;

interface ShResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

async function containerOf(sandboxId: string): Promise<Docker.Container> {
  const list = await docker.listContainers({
    all: true,
    filters: JSON.stringify({ label: [`shoal.sandbox=${sandboxId}`] }),
  });
  if (!list[0]) throw new Error(`no container for ${sandboxId}`);
  return docker.getContainer(list[0].Id);
}

/**
 * Runs a constant bash script inside the sandbox. A shell string on purpose: the scripts are
 * curl pipelines written in this file (never request data), and this is test code, not product
 * code — product code passes argv arrays.
 */
async function sh(sandboxId: string, script: string, stdin?: string): Promise<ShResult> {
  const container = await containerOf(sandboxId);
  const exec = await container.exec({
    Cmd: ['bash', '-c', script],
    AttachStdin: stdin !== undefined,
    AttachStdout: true,
    AttachStderr: true,
  });
  const stream = await exec.start({ hijack: true, stdin: stdin !== undefined });
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (chunk: Buffer) => out.push(chunk));
  stderr.on('data', (chunk: Buffer) => err.push(chunk));
  docker.modem.demuxStream(stream, stdout, stderr);
  await new Promise<void>((resolve) => {
    stream.on('end', resolve);
    stream.on('close', resolve);
    if (stdin !== undefined) stream.end(stdin);
  });
  let info = await exec.inspect();
  while (info.Running) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    info = await exec.inspect();
  }
  return {
    stdout: Buffer.concat(out).toString(),
    stderr: Buffer.concat(err).toString(),
    exitCode: info.ExitCode ?? -1,
  };
}

/** HTTP status from inside the sandbox; '000' plus curl's exit code when no answer came. */
async function status(sandboxId: string, url: string, extra = ''): Promise<string> {
  const result = await sh(sandboxId, `curl -sS -m 15 -o /dev/null -w '%{http_code}' ${extra} '${url}'; echo " $?"`);
  return result.stdout.trim();
}

function iptablesRules(): string {
  return `${execFileSync('iptables', ['-w', '-S']).toString()}\n${execFileSync('iptables', ['-w', '-t', 'nat', '-S']).toString()}`;
}

function rulesFor(sandboxId: string): string[] {
  return iptablesRules()
    .split('\n')
    .filter((line) => line.includes(`shoal:${sandboxId}"`) || line.includes(`shoal:${sandboxId} `));
}

async function setPolicy(id: string, policy: Record<string, unknown>): Promise<Sandbox> {
  const response = await shoal.request<Sandbox>('PUT', `/v1/sandbox/${id}/network-policy`, { body: policy });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

function record(server: Seen['server']) {
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    seen.push({ server, host: req.headers.host, path: req.url, headers: req.headers });
    // The answer never echoes request headers: what the sandbox sees must not contain the secret.
    res.end(`${server}-server-ok\n`);
  };
}

beforeAll(async () => {
  try {
    execFileSync('iptables', ['-w', '-S', 'DOCKER-USER'], { stdio: 'pipe' });
  } catch {
    throw new Error(
      'iptables with the Docker chains is required: run as root on the Docker host (apt-get install -y iptables).',
    );
  }
  tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-egress-test-'));
  testCa = await SandboxCa.create('test-upstream-ca');
  const caFile = path.join(tmpDir, 'test-ca.pem');
  fs.writeFileSync(caFile, testCa.certPem);

  httpServer = http.createServer(record('http'));
  tlsServer = https.createServer(
    {
      SNICallback: (name, callback) =>
        testCa.contextFor(name).then(
          (context) => callback(null, context),
          (error) => callback(error),
        ),
    },
    record('tls'),
  );
  await new Promise<void>((resolve) => httpServer.listen(0, '0.0.0.0', resolve));
  await new Promise<void>((resolve) => tlsServer.listen(0, '0.0.0.0', resolve));
  httpPort = (httpServer.address() as AddressInfo).port;
  tlsPort = (tlsServer.address() as AddressInfo).port;

  const sandboxesNet = await docker
    .getNetwork('shoal-sandboxes')
    .inspect()
    .catch(() => null);
  sandboxesGateway = sandboxesNet?.IPAM?.Config?.[0]?.Gateway ?? '172.18.0.1';
  lanAddress = Object.entries(os.networkInterfaces())
    .filter(([name]) => !/^(lo|docker|br-|shoal|veth)/.test(name))
    .flatMap(([, list]) => list ?? [])
    .find((info) => info.family === 'IPv4' && !info.internal)?.address;

  shoal = await startShoal({
    env: {
      // Listening on every address, as in production, so the firewall (not the bind) keeps sandboxes out.
      HOST: '0.0.0.0',
      SHOAL_EGRESS_HOSTS_OVERRIDE: [
        `http-echo.shoal.test=${sandboxesGateway}:${httpPort}`,
        `tls-echo.shoal.test=${sandboxesGateway}:${tlsPort}`,
        `tunnel.shoal.test=${sandboxesGateway}:${tlsPort}`,
      ].join(','),
      SHOAL_EGRESS_EXTRA_CA_FILE: caFile,
    },
  });
  shoalPort = Number(new URL(shoal.url).port);
  const egressNet = await eventually(
    async () =>
      (await docker
        .getNetwork('shoal-egress')
        .inspect()
        .catch(() => undefined)) as Docker.NetworkInspectInfo | undefined,
    30_000,
    'the shoal-egress network',
  );
  egressGateway = egressNet.IPAM!.Config![0].Gateway!;
  // An allow-all sandbox: the control that shows each refusal below is the policy's doing.
  control = await restoreRunning(shoal);
  expect(await status(control.id, MIRROR_URL), "this machine's containers must reach deb.debian.org").toBe('200 0');
  mirrorAddress = (await sh(control.id, 'getent hosts deb.debian.org')).stdout.split(/\s/)[0];
});

afterAll(async () => {
  // Deleted through the API first, so their firewall rules go the way they do in production.
  const live = await shoal?.request<{ items: Sandbox[] }>('GET', '/v1/sandboxes?page-size=1000').catch(() => null);
  for (const item of live?.body.items ?? []) await shoal.request('DELETE', `/v1/sandbox/${item.id}`);
  await shoal?.stop();
  httpServer?.close();
  tlsServer?.close();
  if (tmpDir) fs.rmSync(tmpDir, { recursive: true, force: true });
});

describe('deny-all', () => {
  it('has no network: no name resolves, neither the host nor Shoal can be reached', async () => {
    const sandbox = await restoreRunning(shoal, { network_policy: { mode: 'deny-all' } });
    const result = await sh(
      sandbox.id,
      `ls /sys/class/net; getent hosts deb.debian.org; echo "dns=$?";
       curl -sS -m 5 http://${sandboxesGateway}:${httpPort}/; echo "host=$?";
       curl -sS -m 5 http://${sandboxesGateway}:${shoalPort}/; echo "shoal=$?"`,
    );
    expect(result.stdout.split('\n')[0]).toBe('lo');
    expect(result.stdout).toContain('dns=2');
    expect(result.stdout).toMatch(/host=[1-9]/);
    expect(result.stdout).toMatch(/shoal=[1-9]/);
    expect(await status(control.id, `http://${sandboxesGateway}:${httpPort}/`)).toBe('200 0');
    await shoal.request('DELETE', `/v1/sandbox/${sandbox.id}`);
  });
});

describe('custom', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await restoreRunning(shoal, { network_policy: { mode: 'custom', allow_domains: ['deb.debian.org'] } });
  });

  it("reaches an allowed domain (Debian's mirror) and resolves it", async () => {
    expect(await status(sandbox.id, MIRROR_URL)).toBe('200 0');
    const resolved = await sh(sandbox.id, 'getent hosts deb.debian.org');
    expect(resolved.exitCode).toBe(0);
  });

  it('refuses names it does not list: no DNS answer, and the proxy refuses them even when dialled by address', async () => {
    const lookup = await sh(
      sandbox.id,
      'getent hosts security.debian.org; echo "rc=$?"; getent hosts example.com; echo "rc=$?"',
    );
    expect(lookup.stdout).toBe('rc=2\nrc=2\n');
    // The sandbox resolves the name itself and dials the mirror's own address: the proxy goes by the name.
    expect(
      await status(sandbox.id, 'http://security.debian.org/', `--resolve security.debian.org:80:${mirrorAddress}`),
    ).toBe('403 0');
    expect(await status(sandbox.id, 'http://deb.debian.org/', "-H 'Host: example.com'")).toBe('403 0');
    const tls = await sh(
      sandbox.id,
      `curl -sS -m 10 --resolve example.com:443:${mirrorAddress} https://example.com/; echo "rc=$?"`,
    );
    expect(tls.stderr).toMatch(/access denied/i);
  });

  it('refuses the metadata address, the host (Shoal included), other ports and protocols', async () => {
    expect(await status(sandbox.id, 'http://169.254.169.254/latest/meta-data/')).toBe('403 0');
    const targets = [
      `http://169.254.169.254:8080/`,
      `http://${egressGateway}:${shoalPort}/v1/sandboxes`,
      `http://${sandboxesGateway}:${shoalPort}/v1/sandboxes`,
      `http://${egressGateway}:${httpPort}/`,
      `http://${sandboxesGateway}:${httpPort}/`,
      ...(lanAddress ? [`http://${lanAddress}:${shoalPort}/`, `http://${lanAddress}:${httpPort}/`] : []),
      `http://deb.debian.org:8080/`,
    ];
    for (const url of targets) {
      const answer = await status(sandbox.id, url, '--connect-timeout 5');
      expect(answer, url).toMatch(/^000 (7|28)$/);
    }
    // The same targets answer an allow-all sandbox: the refusals above are the policy's.
    expect(await status(control.id, `http://${sandboxesGateway}:${shoalPort}/v1/sandboxes`)).toBe('401 0');
    expect(await status(control.id, `http://${sandboxesGateway}:${httpPort}/`)).toBe('200 0');
  });

  it('drops its rules on stop and re-creates them for its (possibly new) address on start', async () => {
    expect((await shoal.request('POST', `/v1/sandbox/${sandbox.id}/stop`)).status).toBe(200);
    await eventually(async () => (rulesFor(sandbox.id).length === 0 ? true : undefined), 10_000, 'rules to go on stop');
    expect((await shoal.request('POST', `/v1/sandbox/${sandbox.id}/start`)).status).toBe(200);
    await eventually(async () => (rulesFor(sandbox.id).length > 0 ? true : undefined), 10_000, 'rules after start');
    const address = (await (await containerOf(sandbox.id)).inspect()).NetworkSettings.Networks['shoal-egress']
      .IPAddress;
    expect(rulesFor(sandbox.id).every((line) => line.includes(`-s ${address}/32`))).toBe(true);
    expect(await status(sandbox.id, MIRROR_URL)).toBe('200 0');
    expect(await status(sandbox.id, `http://${sandboxesGateway}:${httpPort}/`, '--connect-timeout 5')).toMatch(/^000/);
  });
});

describe('custom with a CIDR', () => {
  it('reaches a host server inside the allowed CIDR and nothing outside it (no names either)', async () => {
    const sandbox = await restoreRunning(shoal, {
      network_policy: { mode: 'custom', allow_cidrs: [`${egressGateway}/32`] },
    });
    seen.length = 0;
    expect(await status(sandbox.id, `http://${egressGateway}:${httpPort}/cidr`)).toBe('200 0');
    expect(seen.map((entry) => entry.path)).toEqual(['/cidr']);
    for (const url of [
      `http://${sandboxesGateway}:${httpPort}/`,
      ...(lanAddress ? [`http://${lanAddress}:${httpPort}/`] : []),
      `http://169.254.169.254:8080/`,
    ]) {
      expect(await status(sandbox.id, url, '--connect-timeout 5'), url).toMatch(/^000 (7|28)$/);
    }
    expect((await sh(sandbox.id, 'getent hosts deb.debian.org')).exitCode).toBe(2);
    expect(await status(sandbox.id, MIRROR_URL, `--resolve deb.debian.org:80:${mirrorAddress}`)).toBe('403 0');
    await shoal.request('DELETE', `/v1/sandbox/${sandbox.id}`);
  });
});

describe('transforms', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await restoreRunning(shoal, {
      network_policy: {
        mode: 'custom',
        allow_domains: ['tunnel.shoal.test'],
        transforms: [
          {
            domain: 'http-echo.shoal.test',
            inject_headers: { Authorization: HTTP_SECRET },
            strip_headers: ['X-Sandbox-Debug'],
          },
          { domain: '*.shoal.test', inject_headers: { 'X-Api-Key': TLS_SECRET } },
        ],
      },
    });
  });

  it('strips then injects headers on HTTP; the server sees the secret, the sandbox never does', async () => {
    seen.length = 0;
    const result = await sh(
      sandbox.id,
      `curl -sS -v -m 15 -H 'Authorization: from-the-sandbox' -H 'X-Sandbox-Debug: 1' -H 'X-Keep: yes' http://http-echo.shoal.test/plain`,
    );
    expect(result.stdout).toBe('http-server-ok\n');
    expect(seen).toHaveLength(1);
    expect(seen[0].headers.authorization).toBe(HTTP_SECRET);
    expect(seen[0].headers['x-sandbox-debug']).toBeUndefined();
    expect(seen[0].headers['x-keep']).toBe('yes');
    // What the sandbox sent and received (curl -v shows both) never held the secret.
    expect(result.stderr).toContain('Authorization: from-the-sandbox');
    expect(`${result.stdout}${result.stderr}`).not.toContain(HTTP_SECRET);
  });

  it('terminates HTTPS with the per-sandbox CA the sandbox trusts, and injects upstream over verified TLS', async () => {
    seen.length = 0;
    const result = await sh(
      sandbox.id,
      `curl -sS -v -m 15 -H 'X-Api-Key: sandbox-value' https://tls-echo.shoal.test/secure`,
    );
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toBe('tls-server-ok\n');
    expect(result.stderr).toContain(`issuer: CN=Shoal egress CA ${sandbox.id}`);
    expect(seen).toEqual([expect.objectContaining({ server: 'tls', path: '/secure' })]);
    expect(seen[0].headers['x-api-key']).toBe(TLS_SECRET);
    expect(`${result.stdout}${result.stderr}`).not.toContain(TLS_SECRET);
  });

  it('passes other allowed HTTPS through untouched: the sandbox sees the server’s own certificate', async () => {
    await sh(sandbox.id, 'cat > /tmp/upstream-ca.pem', testCa.certPem);
    // tunnel.shoal.test also matches *.shoal.test: a transform wins, so use a listed name without one.
    await setPolicy(sandbox.id, {
      mode: 'custom',
      allow_domains: ['tunnel.shoal.test'],
      transforms: [{ domain: 'http-echo.shoal.test', inject_headers: { Authorization: HTTP_SECRET } }],
    });
    seen.length = 0;
    const result = await sh(
      sandbox.id,
      `curl -sS -v -m 15 --cacert /tmp/upstream-ca.pem -H 'X-Api-Key: mine' https://tunnel.shoal.test/t`,
    );
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain('issuer: CN=Shoal egress CA test-upstream-ca');
    expect(seen[0].headers['x-api-key']).toBe('mine');
  });

  it('never shows injected values in API responses, and keeps them when a client PUTs a read policy back', async () => {
    const read = await shoal.request<Sandbox>('GET', `/v1/sandbox/${sandbox.id}`);
    expect(read.text).not.toContain(HTTP_SECRET);
    expect(read.body.network_policy.transforms?.[0].inject_headers).toEqual({ Authorization: '[redacted]' });
    const listed = await shoal.request('GET', '/v1/sandboxes');
    expect(listed.text).not.toContain(HTTP_SECRET);

    const putBack = await shoal.request<Sandbox>('PUT', `/v1/sandbox/${sandbox.id}/network-policy`, {
      body: read.body.network_policy,
    });
    expect(putBack.status).toBe(200);
    expect(putBack.text).not.toContain(HTTP_SECRET);
    seen.length = 0;
    await sh(sandbox.id, 'curl -sS -m 15 http://http-echo.shoal.test/after-put');
    expect(seen[0].headers.authorization).toBe(HTTP_SECRET);
  });

  it('keeps the secrets out of the sandbox and out of the logs', async () => {
    // Everything a process in the sandbox could read its configuration from (the secrets are not sent in).
    const result = await sh(
      sandbox.id,
      'env; cat /etc/environment /etc/profile.d/*.sh /proc/1/environ 2>/dev/null; cat /etc/ssl/certs/ca-certificates.crt | tail -c 4000; true',
    );
    expect(result.stdout).not.toContain(HTTP_SECRET);
    expect(result.stdout).not.toContain(TLS_SECRET);
    expect(result.stdout).toContain('SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt');
    expect(shoal.output()).not.toContain(HTTP_SECRET);
    expect(shoal.output()).not.toContain(TLS_SECRET);
  });
});

describe('policy changes on a running sandbox', () => {
  it('take effect at once, without a restart, in every direction', async () => {
    const sandbox = await restoreRunning(shoal);
    const container = await containerOf(sandbox.id);
    const startedAt = (await container.inspect()).State.StartedAt;
    const hostUrl = `http://${sandboxesGateway}:${httpPort}/`;
    expect(await status(sandbox.id, hostUrl)).toBe('200 0');

    const custom = await setPolicy(sandbox.id, { mode: 'custom', allow_domains: ['deb.debian.org'] });
    expect(custom.network_policy).toEqual({ mode: 'custom', allow_domains: ['deb.debian.org'] });
    expect(await status(sandbox.id, hostUrl, '--connect-timeout 5')).toMatch(/^000 (7|28)$/);
    expect(await status(sandbox.id, MIRROR_URL)).toBe('200 0');

    await setPolicy(sandbox.id, {
      mode: 'custom',
      allow_domains: ['http-echo.shoal.test'],
      transforms: [{ domain: 'tls-echo.shoal.test', inject_headers: { 'X-Api-Key': TLS_SECRET } }],
    });
    expect(await status(sandbox.id, MIRROR_URL)).toMatch(/^(403 0|000 6)$/);
    expect(await status(sandbox.id, 'http://http-echo.shoal.test/')).toBe('200 0');
    seen.length = 0;
    // The CA was installed by the change; a new login shell also gets the variables.
    const secure = await sh(
      sandbox.id,
      `bash -lc 'echo "$SSL_CERT_FILE"; curl -sS -m 15 https://tls-echo.shoal.test/later'`,
    );
    expect(secure.stdout, secure.stderr).toBe('/etc/ssl/certs/ca-certificates.crt\ntls-server-ok\n');
    expect(seen[0].headers['x-api-key']).toBe(TLS_SECRET);

    await setPolicy(sandbox.id, { mode: 'deny-all' });
    expect((await sh(sandbox.id, 'ls /sys/class/net')).stdout).toBe('lo\n');
    expect(rulesFor(sandbox.id)).toEqual([]);

    await setPolicy(sandbox.id, { mode: 'allow-all' });
    expect(await status(sandbox.id, hostUrl)).toBe('200 0');
    expect((await container.inspect()).State.StartedAt).toBe(startedAt);
    await shoal.request('DELETE', `/v1/sandbox/${sandbox.id}`);
  });
});

describe('rule lifetime', () => {
  it('re-establishes rules with the new proxy ports after Shoal restarts, and removes them on delete', async () => {
    const sandbox = await restoreRunning(shoal, {
      network_policy: { mode: 'custom', allow_domains: ['deb.debian.org'] },
    });
    const before = rulesFor(sandbox.id);
    expect(before.length).toBeGreaterThan(0);
    await shoal.kill();
    shoal = await startShoal({
      dataDir: shoal.dataDir,
      apiKey: shoal.apiKey,
      env: {
        HOST: '0.0.0.0',
        SHOAL_EGRESS_HOSTS_OVERRIDE: `http-echo.shoal.test=${sandboxesGateway}:${httpPort}`,
      },
    });
    await eventually(
      async () => (rulesFor(sandbox.id).join('\n') !== before.join('\n') ? true : undefined),
      20_000,
      'rules with the new ports',
    );
    expect(await status(sandbox.id, MIRROR_URL)).toBe('200 0');

    const caDir = path.join(shoal.dataDir, 'egress-ca', sandbox.id);
    expect(fs.existsSync(caDir)).toBe(true);
    expect((await shoal.request('DELETE', `/v1/sandbox/${sandbox.id}`)).status).toBe(204);
    expect(rulesFor(sandbox.id)).toEqual([]);
    expect(fs.existsSync(caDir)).toBe(false);
  });
});
