import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

/** A random secret kept in the data dir (mode 600), created on first use. */
export function persistentSecret(dataDir: string, name: string, bytes = 32): string {
  const file = path.join(dataDir, name);
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const secret = randomBytes(bytes).toString('base64url');
    fs.writeFileSync(file, `${secret}\n`, { mode: 0o600 });
    return secret;
  }
}
