import fs from 'node:fs';
import path from 'node:path';
import { utils } from 'ssh2';

export const HOST_KEY_FILE = 'ssh_host_ed25519_key';

/**
 * The gateway's host key: an ed25519 key in OpenSSH format, generated on first start and kept
 * in the data dir (mode 600), so clients see the same host key across restarts.
 */
export function loadOrCreateHostKey(dataDir: string): string {
  const file = path.join(dataDir, HOST_KEY_FILE);
  let key: string;
  try {
    key = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    key = utils.generateKeyPairSync('ed25519').private;
    try {
      fs.writeFileSync(file, key, { mode: 0o600, flag: 'wx' });
    } catch (writeError) {
      // Another process wrote it first: use theirs.
      if ((writeError as NodeJS.ErrnoException).code !== 'EEXIST') throw writeError;
      key = fs.readFileSync(file, 'utf8');
    }
  }
  const parsed = utils.parseKey(key);
  if (parsed instanceof Error) throw new Error(`The SSH host key ${file} is unreadable: ${parsed.message}`);
  return key;
}
