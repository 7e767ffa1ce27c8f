import { generateKeyPair, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { promisify } from 'node:util';
import forge from 'node-forge';

const generateRsa = promisify(generateKeyPair);
const CA_VALIDITY_DAYS = 3650;
const LEAF_VALIDITY_DAYS = 30;
/** Leaf contexts are re-minted well before their certificate expires. */
const LEAF_REUSE_MS = 7 * 24 * 3600 * 1000;
const DAY_MS = 24 * 3600 * 1000;

/** RSA key pair made by Node's native crypto (fast, off the event loop), handed to forge as PEM. */
async function newRsaKey(): Promise<{ privateKey: forge.pki.rsa.PrivateKey; publicKey: forge.pki.rsa.PublicKey }> {
  const { privateKey } = await generateRsa('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  const key = forge.pki.privateKeyFromPem(privateKey) as forge.pki.rsa.PrivateKey;
  return { privateKey: key, publicKey: forge.pki.rsa.setPublicKey(key.n, key.e) };
}

type RsaKey = Awaited<ReturnType<typeof newRsaKey>>;

/**
 * RSA key pairs made ahead of need: generating one takes from a few hundred milliseconds to over
 * a second, which would otherwise land on every custom sandbox's start and first terminated TLS
 * connection. Keeps `size` spares, refilled in the background one at a time.
 */
export class KeyPool {
  private readonly spares: Array<Promise<RsaKey>> = [];

  constructor(private readonly size = 2) {}

  /** Fills the pool now (`take` also refills it after each use). */
  fill(): void {
    while (this.spares.length < this.size) {
      const key = newRsaKey();
      key.catch(() => undefined);
      this.spares.push(key);
    }
  }

  take(): Promise<RsaKey> {
    const key = this.spares.shift() ?? newRsaKey();
    if (this.size > 0) setImmediate(() => this.fill());
    return key;
  }
}

/** A positive serial number of 16 random bytes, as forge wants it (hex). */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] &= 0x7f;
  return bytes.toString('hex');
}

/**
 * A sandbox's own certificate authority. Its certificate is installed in the sandbox's trust
 * store; its key never leaves the host (the data dir, mode 0600). Leaf certificates are minted per
 * TLS server name on first use and cached, all sharing one leaf key per sandbox.
 */
export class SandboxCa {
  private leafKey: Promise<RsaKey> | null = null;
  private readonly contexts = new Map<string, { until: number; context: Promise<tls.SecureContext> }>();

  private constructor(
    readonly sandboxId: string,
    private readonly key: forge.pki.rsa.PrivateKey,
    private readonly cert: forge.pki.Certificate,
    private readonly keys: KeyPool | null,
  ) {}

  static async create(sandboxId: string, keys: KeyPool | null = null): Promise<SandboxCa> {
    const keyPair = await (keys ? keys.take() : newRsaKey());
    const cert = forge.pki.createCertificate();
    cert.publicKey = keyPair.publicKey;
    cert.serialNumber = serialNumber();
    cert.validity.notBefore = new Date(Date.now() - DAY_MS);
    cert.validity.notAfter = new Date(Date.now() + CA_VALIDITY_DAYS * DAY_MS);
    const subject = [
      { name: 'commonName', value: `Shoal egress CA ${sandboxId}` },
      { name: 'organizationName', value: 'Shoal' },
    ];
    cert.setSubject(subject);
    cert.setIssuer(subject);
    cert.setExtensions([
      { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
      { name: 'subjectKeyIdentifier' },
    ]);
    cert.sign(keyPair.privateKey, forge.md.sha256.create());
    return new SandboxCa(sandboxId, keyPair.privateKey, cert, keys);
  }

  static fromPem(sandboxId: string, certPem: string, keyPem: string, keys: KeyPool | null = null): SandboxCa {
    return new SandboxCa(
      sandboxId,
      forge.pki.privateKeyFromPem(keyPem) as forge.pki.rsa.PrivateKey,
      forge.pki.certificateFromPem(certPem),
      keys,
    );
  }

  get certPem(): string {
    return forge.pki.certificateToPem(this.cert);
  }

  get keyPem(): string {
    return forge.pki.privateKeyToPem(this.key);
  }

  /** A certificate for `host` signed by this CA (PEM), with its key. */
  async issue(host: string): Promise<{ certPem: string; keyPem: string }> {
    this.leafKey ??= this.keys ? this.keys.take() : newRsaKey();
    const leafKey = await this.leafKey;
    const cert = forge.pki.createCertificate();
    cert.publicKey = leafKey.publicKey;
    cert.serialNumber = serialNumber();
    cert.validity.notBefore = new Date(Date.now() - 3600 * 1000);
    cert.validity.notAfter = new Date(Date.now() + LEAF_VALIDITY_DAYS * DAY_MS);
    cert.setSubject([{ name: 'commonName', value: host }]);
    cert.setIssuer(this.cert.subject.attributes);
    cert.setExtensions([
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: host }] },
      {
        name: 'authorityKeyIdentifier',
        keyIdentifier: this.cert.generateSubjectKeyIdentifier().getBytes(),
      },
    ]);
    cert.sign(this.key, forge.md.sha256.create());
    return { certPem: forge.pki.certificateToPem(cert), keyPem: forge.pki.privateKeyToPem(leafKey.privateKey) };
  }

  /** The TLS server context the proxy presents to the sandbox for `host` (cached). */
  contextFor(host: string): Promise<tls.SecureContext> {
    const now = Date.now();
    const cached = this.contexts.get(host);
    if (cached && cached.until > now) return cached.context;
    const context = this.issue(host).then(({ certPem, keyPem }) =>
      tls.createSecureContext({ cert: certPem, key: keyPem }),
    );
    this.contexts.set(host, { until: now + LEAF_REUSE_MS, context });
    context.catch(() => this.contexts.delete(host));
    return context;
  }
}

const SANDBOX_ID_RE = /^[A-Za-z0-9_-]{1,64}$/;

/** Per-sandbox CAs, kept under `<dataDir>/egress-ca/<sandboxId>/` so they survive a Shoal restart. */
export class CaStore {
  private readonly loaded = new Map<string, Promise<SandboxCa>>();

  constructor(
    private readonly dir: string,
    private readonly keys: KeyPool | null = null,
  ) {}

  private pathsFor(sandboxId: string): { dir: string; cert: string; key: string } {
    if (!SANDBOX_ID_RE.test(sandboxId)) throw new Error(`unexpected sandbox id '${sandboxId}'`);
    const dir = path.join(this.dir, sandboxId);
    return { dir, cert: path.join(dir, 'ca.crt'), key: path.join(dir, 'ca.key') };
  }

  forSandbox(sandboxId: string): Promise<SandboxCa> {
    let ca = this.loaded.get(sandboxId);
    if (!ca) {
      ca = this.loadOrCreate(sandboxId);
      this.loaded.set(sandboxId, ca);
      ca.catch(() => this.loaded.delete(sandboxId));
    }
    return ca;
  }

  private async loadOrCreate(sandboxId: string): Promise<SandboxCa> {
    const paths = this.pathsFor(sandboxId);
    try {
      return SandboxCa.fromPem(
        sandboxId,
        await fs.promises.readFile(paths.cert, 'utf8'),
        await fs.promises.readFile(paths.key, 'utf8'),
        this.keys,
      );
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const ca = await SandboxCa.create(sandboxId, this.keys);
    await fs.promises.mkdir(paths.dir, { recursive: true, mode: 0o700 });
    await fs.promises.writeFile(paths.key, ca.keyPem, { mode: 0o600 });
    await fs.promises.writeFile(paths.cert, ca.certPem, { mode: 0o644 });
    return ca;
  }

  /** Forgets and deletes the sandbox's CA (the sandbox is gone). */
  async remove(sandboxId: string): Promise<void> {
    this.loaded.delete(sandboxId);
    await fs.promises.rm(this.pathsFor(sandboxId).dir, { recursive: true, force: true });
  }

  /** Sandbox ids that have a CA on disk. */
  async list(): Promise<string[]> {
    try {
      return (await fs.promises.readdir(this.dir)).filter((name) => SANDBOX_ID_RE.test(name));
    } catch {
      return [];
    }
  }
}
