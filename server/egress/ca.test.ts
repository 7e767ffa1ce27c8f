import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import { CaStore, KeyPool, SandboxCa } from './ca';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** A TLS handshake against a server presenting `context`; resolves with the error, if any. */
async function handshake(context: tls.SecureContext, ca: string, servername: string): Promise<Error | null> {
  const server = tls.createServer({ SNICallback: (_name, cb) => cb(null, context) }, (socket) => socket.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  try {
    return await new Promise<Error | null>((resolve) => {
      const socket = tls.connect({ host: '127.0.0.1', port, servername, ca }, () => {
        socket.end();
        resolve(null);
      });
      socket.on('error', resolve);
    });
  } finally {
    server.close();
  }
}

describe('SandboxCa', () => {
  it('is a CA, and issues leaf certificates for a name that verify against it', async () => {
    const ca = await SandboxCa.create('sbx-testtesttest');
    const caCert = new X509Certificate(ca.certPem);
    expect(caCert.ca).toBe(true);
    expect(caCert.subject).toContain('sbx-testtesttest');
    const leaf = new X509Certificate((await ca.issue('api.example.com')).certPem);
    expect(leaf.ca).toBe(false);
    expect(leaf.verify(caCert.publicKey)).toBe(true);
    expect(leaf.checkIssued(caCert)).toBe(true);
    expect(leaf.checkHost('api.example.com')).toBe('api.example.com');
    expect(leaf.checkHost('other.example.com')).toBeUndefined();
  });

  it('serves TLS a client trusting only this CA accepts for that name, and refuses for another', async () => {
    const ca = await SandboxCa.create('sbx-testtesttest');
    const context = await ca.contextFor('api.example.com');
    expect(await handshake(context, ca.certPem, 'api.example.com')).toBeNull();
    expect(await handshake(context, ca.certPem, 'evil.example.com')).toBeInstanceOf(Error);
    const other = await SandboxCa.create('sbx-othersandbox');
    expect(await handshake(context, other.certPem, 'api.example.com')).toBeInstanceOf(Error);
  });

  it('caches the context per name', async () => {
    const ca = await SandboxCa.create('sbx-testtesttest');
    expect(ca.contextFor('a.example.com')).toBe(ca.contextFor('a.example.com'));
  });
});

describe('CaStore', () => {
  it('keeps a sandbox CA across restarts, key readable by the owner only, and deletes it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-ca-'));
    dirs.push(dir);
    const first = await new CaStore(dir).forSandbox('sbx-keepkeepkeep');
    const again = await new CaStore(dir).forSandbox('sbx-keepkeepkeep');
    expect(again.certPem).toBe(first.certPem);
    expect(fs.statSync(path.join(dir, 'sbx-keepkeepkeep', 'ca.key')).mode & 0o777).toBe(0o600);
    const store = new CaStore(dir);
    expect(await store.list()).toEqual(['sbx-keepkeepkeep']);
    await store.remove('sbx-keepkeepkeep');
    expect(fs.existsSync(path.join(dir, 'sbx-keepkeepkeep'))).toBe(false);
    expect(await store.list()).toEqual([]);
  });

  it('refuses ids that could leave its directory', async () => {
    const store = new CaStore(os.tmpdir());
    await expect(store.forSandbox('../etc')).rejects.toThrow(/unexpected sandbox id/);
  });
});

describe('KeyPool', () => {
  it('hands out distinct keys made ahead, and CAs built from them work', async () => {
    const pool = new KeyPool(1);
    pool.fill();
    const first = await pool.take();
    const second = await pool.take();
    expect(first.privateKey.n.equals(second.privateKey.n)).toBe(false);
    const ca = await SandboxCa.create('sbx-poolpoolpool', pool);
    const leaf = new X509Certificate((await ca.issue('a.example.com')).certPem);
    expect(leaf.verify(new X509Certificate(ca.certPem).publicKey)).toBe(true);
  });
});
