import fs from 'node:fs';
import path from 'node:path';

/** The OpenSSH client, as a person would use it against the gateway. */
export const SSH_BINARY = '/usr/bin/ssh';
export const SFTP_BINARY = '/usr/bin/sftp';

/**
 * OpenSSH client options for a throwaway login: no user config, no host-key prompt or
 * known_hosts entry, password only (no agent or key files), one attempt, errors only.
 */
export const SSH_CLIENT_OPTIONS = [
  '-F',
  '/dev/null',
  '-o',
  'StrictHostKeyChecking=no',
  '-o',
  'UserKnownHostsFile=/dev/null',
  '-o',
  'PreferredAuthentications=password',
  '-o',
  'PubkeyAuthentication=no',
  '-o',
  'NumberOfPasswordPrompts=1',
  '-o',
  'LogLevel=ERROR',
];

/** The variable the askpass helper answers from (the password never appears in argv). */
const PASSWORD_ENV = 'SHOAL_SSH_CLIENT_PASSWORD';

/** Fails with the install command when an OpenSSH client binary is missing. */
export function requireOpenSshClient(binaries: string[] = [SSH_BINARY, SFTP_BINARY]): void {
  for (const binary of binaries) {
    if (!fs.existsSync(binary)) {
      throw new Error(`${binary} is missing: install the OpenSSH client with \`apt-get install -y openssh-client\``);
    }
  }
}

/** Writes an askpass helper into `dir` (a private temp dir) and returns its path. */
export function writeAskpass(dir: string): string {
  const askpass = path.join(dir, 'askpass.sh');
  fs.writeFileSync(askpass, `#!/bin/sh\nprintf "%s\\n" "$${PASSWORD_ENV}"\n`, { mode: 0o700 });
  return askpass;
}

/** Environment for ssh/sftp that answers the password prompt through `askpass`, as a person would type it. */
export function askpassEnv(askpass: string, password: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    SSH_ASKPASS: askpass,
    SSH_ASKPASS_REQUIRE: 'force',
    DISPLAY: ':0',
    [PASSWORD_ENV]: password,
  };
}
