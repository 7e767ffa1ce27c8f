import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { SandboxCa } from '../../server/egress/ca';
import { SANDBOX_CA_PATH } from '../../server/egress/enforcer';
import type { Sandbox } from '../../server/spec/sandbox';
import { startShoal, type ShoalServer } from '../../server/testing/shoal-server';
import {
  median,
  percentile,
  rawExec,
  runningSandbox,
  type BenchRow,
  type BenchSection,
  type RunningSandbox,
} from './lib';

const docker = new Docker();

/** Runs a constant bash script in the sandbox's container; stdout as text. */
async function sh(sandbox: RunningSandbox, script: string, stdin?: string): Promise<string> {
  return (await rawExec(sandbox.container, ['bash', '-c', script], stdin)).stdout.toString();
}

async function restore(shoal: ShoalServer, policy: Record<string, unknown>): Promise<{ id: string; ms: number }> {
  const start = performance.now();
  const created = await shoal.request<Sandbox>('POST', '/v1/snapshot/restore', {
    body: { snapshot_name: 'debian-bookworm', network_policy: policy },
  });
  if (created.status !== 201) throw new Error(`restore failed: ${created.text}`);
  for (;;) {
    const current = await shoal.request<Sandbox>('GET', `/v1/sandbox/${created.body.id}`);
    if (current.body.state === 'running') return { id: created.body.id, ms: performance.now() - start };
    if (current.body.state === 'deleted') throw new Error(`sandbox ${created.body.id} failed to start`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

interface Series {
  latenciesMs: number[];
  perSecond: number;
}

/**
 * `count` requests from inside the sandbox in one exec: one curl per request (a new connection,
 * as most tools make), or one curl for all of them (keep-alive). Latency is curl's own
 * time_total per request; throughput is requests over the loop's wall time.
 */
async function requests(
  sandbox: RunningSandbox,
  url: string,
  curlArgs: string,
  count: number,
  keepAlive: boolean,
): Promise<Series> {
  const loop = keepAlive
    ? `args=(); for i in $(seq ${count}); do args+=(-o /dev/null "$URL"); done; curl -s -w '%{time_total}\\n' $CURL_ARGS "\${args[@]}"`
    : `for i in $(seq ${count}); do curl -s -o /dev/null -w '%{time_total}\\n' $CURL_ARGS "$URL"; done`;
  const output = await sh(
    sandbox,
    `URL='${url}'; CURL_ARGS='${curlArgs}'; start=$(date +%s%N); ${loop}; echo "wall $(( $(date +%s%N) - start ))"`,
  );
  const lines = output.trim().split('\n');
  const wallNs = Number(lines.pop()!.split(' ')[1]);
  const latenciesMs = lines.map((line) => Number(line) * 1000).filter((ms) => Number.isFinite(ms) && ms > 0);
  if (latenciesMs.length !== count)
    throw new Error(`expected ${count} timings from ${url}, got:\n${output.slice(0, 500)}`);
  return { latenciesMs, perSecond: count / (wallNs / 1e9) };
}

async function lookups(sandbox: RunningSandbox, name: string, count: number): Promise<number[]> {
  const output = await sh(
    sandbox,
    `for i in $(seq ${count}); do s=$(date +%s%N); getent hosts ${name} >/dev/null || echo fail; echo $(( $(date +%s%N) - s )); done`,
  );
  if (output.includes('fail')) throw new Error(`${name} did not resolve in ${sandbox.id}`);
  return output
    .trim()
    .split('\n')
    .map((line) => Number(line) / 1e6);
}

export const egressBench: BenchSection = {
  name: 'Network egress (custom policy through the proxy; raw = the same from an allow-all sandbox)',
  async run({ runs }) {
    const count = Math.max(200, runs * 10);
    const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-egress-bench-'));
    const ca = await SandboxCa.create('bench-upstream-ca');
    const caFile = path.join(tmpDir, 'ca.pem');
    fs.writeFileSync(caFile, ca.certPem);
    const answer = (_req: http.IncomingMessage, res: http.ServerResponse) => res.end('ok\n');
    const httpServer = http.createServer(answer);
    const tlsServer = https.createServer(
      { SNICallback: (name, cb) => ca.contextFor(name).then((context) => cb(null, context), cb) },
      answer,
    );
    httpServer.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => httpServer.listen(0, '0.0.0.0', resolve));
    await new Promise<void>((resolve) => tlsServer.listen(0, '0.0.0.0', resolve));
    const httpPort = (httpServer.address() as AddressInfo).port;
    const tlsPort = (tlsServer.address() as AddressInfo).port;
    const network = await docker.getNetwork('shoal-sandboxes').inspect();
    const gateway: string = network.IPAM?.Config?.[0]?.Gateway ?? '172.18.0.1';

    // Its own server: the test hooks map the bench names to the local servers.
    const shoal = await startShoal({
      env: {
        SHOAL_MAX_SANDBOXES: '50',
        SHOAL_RATE_LIMIT: '0',
        SHOAL_EGRESS_HOSTS_OVERRIDE: `bench.shoal.test=${gateway}:${httpPort},tls-bench.shoal.test=${gateway}:${tlsPort}`,
        SHOAL_EGRESS_EXTRA_CA_FILE: caFile,
      },
    });
    try {
      const customPolicy = {
        mode: 'custom',
        allow_domains: ['bench.shoal.test', 'deb.debian.org'],
        transforms: [{ domain: 'tls-bench.shoal.test', inject_headers: { 'X-Api-Key': 'bench-secret' } }],
      };
      const restoreCustom: number[] = [];
      const restoreOpen: number[] = [];
      for (let i = 0; i < runs; i++) {
        for (const [policy, into] of [
          [customPolicy, restoreCustom],
          [{ mode: 'allow-all' }, restoreOpen],
        ] as const) {
          const { id, ms } = await restore(shoal, policy);
          into.push(ms);
          await shoal.request('DELETE', `/v1/sandbox/${id}`);
        }
      }

      const open = await runningSandbox(shoal, { network_policy: { mode: 'allow-all' } });
      const custom = await runningSandbox(shoal, { network_policy: customPolicy });
      await sh(open, 'cat > /tmp/bench-ca.pem', ca.certPem);
      // Both send the same request (same Host, no DNS): the allow-all one straight to the server,
      // the custom one to port 80/443 where the firewall hands it to the proxy.
      const direct = `--resolve bench.shoal.test:${httpPort}:${gateway}`;
      const viaProxy = `--resolve bench.shoal.test:80:${gateway}`;
      const openUrl = `http://bench.shoal.test:${httpPort}/`;
      const customUrl = 'http://bench.shoal.test/';
      // Each side trusts exactly one CA file, so neither pays for loading the system bundle.
      const viaMitm = `--cacert ${SANDBOX_CA_PATH} --resolve tls-bench.shoal.test:443:${gateway}`;
      // Warm-up (first connections, CA leaf minting).
      await requests(open, openUrl, direct, 5, false);
      await requests(custom, customUrl, viaProxy, 5, false);
      await requests(custom, 'https://tls-bench.shoal.test/', viaMitm, 5, false);

      const fresh = {
        ours: await requests(custom, customUrl, viaProxy, count, false),
        raw: await requests(open, openUrl, direct, count, false),
      };
      const kept = {
        ours: await requests(custom, customUrl, viaProxy, count, true),
        raw: await requests(open, openUrl, direct, count, true),
      };
      const tlsCount = Math.max(100, runs * 5);
      const tls = {
        ours: await requests(custom, 'https://tls-bench.shoal.test/', viaMitm, tlsCount, false),
        raw: await requests(
          open,
          `https://tls-bench.shoal.test:${tlsPort}/`,
          `--cacert /tmp/bench-ca.pem --resolve tls-bench.shoal.test:${tlsPort}:${gateway}`,
          tlsCount,
          false,
        ),
      };
      const dns = {
        ours: await lookups(custom, 'deb.debian.org', runs * 2),
        raw: await lookups(open, 'deb.debian.org', runs * 2),
      };
      for (const { id } of [open, custom]) await shoal.request('DELETE', `/v1/sandbox/${id}`);

      const rows: BenchRow[] = [
        {
          figure: 'restore → running, custom policy vs allow-all (median)',
          unit: 'ms',
          ours: median(restoreCustom),
          raw: median(restoreOpen),
        },
        {
          figure: `HTTP, new connection per request: latency median (${count} req)`,
          unit: 'ms',
          ours: median(fresh.ours.latenciesMs),
          raw: median(fresh.raw.latenciesMs),
        },
        {
          figure: 'HTTP, new connection per request: latency p99',
          unit: 'ms',
          ours: percentile(fresh.ours.latenciesMs, 99),
          raw: percentile(fresh.raw.latenciesMs, 99),
        },
        {
          figure: 'HTTP, new connection per request: throughput (one curl each)',
          unit: 'req/s',
          ours: fresh.ours.perSecond,
          raw: fresh.raw.perSecond,
        },
        {
          figure: `HTTP keep-alive: latency median (${count} req, one curl)`,
          unit: 'ms',
          ours: median(kept.ours.latenciesMs),
          raw: median(kept.raw.latenciesMs),
        },
        {
          figure: 'HTTP keep-alive: latency p99',
          unit: 'ms',
          ours: percentile(kept.ours.latenciesMs, 99),
          raw: percentile(kept.raw.latenciesMs, 99),
        },
        { figure: 'HTTP keep-alive: throughput', unit: 'req/s', ours: kept.ours.perSecond, raw: kept.raw.perSecond },
        {
          figure: `HTTPS with a transform (TLS terminated, header injected): latency median (${tlsCount} req)`,
          unit: 'ms',
          ours: median(tls.ours.latenciesMs),
          raw: median(tls.raw.latenciesMs),
        },
        {
          figure: 'HTTPS with a transform: latency p99',
          unit: 'ms',
          ours: percentile(tls.ours.latenciesMs, 99),
          raw: percentile(tls.raw.latenciesMs, 99),
        },
        {
          figure: "name lookup of an allowed name (Shoal's DNS vs Docker's)",
          unit: 'ms',
          ours: median(dns.ours),
          raw: median(dns.raw),
        },
      ];
      return rows;
    } finally {
      await shoal.stop();
      httpServer.close();
      tlsServer.close();
      fs.rmSync(tmpDir, { recursive: true, force: true });
    }
  },
};
