import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'ssh2';
import type { SshAccess } from '../../server/spec/ssh';
import {
  askpassEnv,
  requireOpenSshClient,
  SSH_BINARY,
  SSH_CLIENT_OPTIONS,
  writeAskpass,
} from '../../server/testing/ssh-client';
import { median, rawExec, runningSandbox, timed, type BenchSection } from './lib';

/** Runs a process to completion; throws unless it exits 0. */
function runProcess(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} exited ${code}: ${stderr.trim()}`)),
    );
  });
}

function sshExec(connection: Client, command: string): Promise<void> {
  return new Promise((resolve, reject) => {
    connection.exec(command, (error, stream) => {
      if (error) return reject(error);
      stream.resume();
      stream.stderr.resume();
      stream.once('close', () => resolve());
    });
  });
}

export const sshBench: BenchSection = {
  name: 'SSH gateway',
  async run({ shoal, runs }) {
    const portLine = /SSH gateway listening on port (\d+)/.exec(shoal.output());
    if (!portLine) {
      throw new Error('the SSH gateway is not listening (port busy?); run with SHOAL_SSH_PORT=0 for a free port');
    }
    requireOpenSshClient([SSH_BINARY]);
    const port = Number(portLine[1]);
    const sandbox = await runningSandbox(shoal);
    const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-ssh-bench-'));
    try {
      const created = await shoal.request<SshAccess>('POST', `/v1/sandbox/${sandbox.id}/ssh/access`);
      if (created.status !== 201) throw new Error(`ssh/access answered ${created.status}: ${created.text}`);
      const access = created.body;
      const env = askpassEnv(writeAskpass(workDir), access.password);
      const sshArgs = [...SSH_CLIENT_OPTIONS, '-p', String(port), `${access.id}@127.0.0.1`, 'true'];
      const { container } = sandbox;

      const ours: number[] = [];
      const raw: number[] = [];
      // Warm-up: first runs pay for page cache and connection set-up.
      await runProcess(SSH_BINARY, sshArgs, env);
      await runProcess('docker', ['exec', container.id, 'true']);
      for (let i = 0; i < runs; i++) {
        ours.push((await timed(() => runProcess(SSH_BINARY, sshArgs, env))).ms);
        raw.push((await timed(() => runProcess('docker', ['exec', container.id, 'true']))).ms);
      }

      // On one open SSH connection: the gateway's own cost per command, without handshake and login.
      const connection = new Client();
      await new Promise<void>((resolve, reject) => {
        connection.once('ready', () => resolve());
        connection.once('error', reject);
        connection.connect({ host: '127.0.0.1', port, username: access.id, password: access.password });
      });
      const warmOurs: number[] = [];
      const warmRaw: number[] = [];
      try {
        await sshExec(connection, 'true');
        await rawExec(container, ['true']);
        for (let i = 0; i < runs; i++) {
          warmOurs.push((await timed(() => sshExec(connection, 'true'))).ms);
          warmRaw.push((await timed(() => rawExec(container, ['true']))).ms);
        }
      } finally {
        connection.end();
      }

      return [
        {
          figure: 'ssh … true (new client process, login) vs docker exec … true (CLI process), median',
          unit: 'ms',
          ours: median(ours),
          raw: median(raw),
        },
        {
          figure: 'exec true on an open SSH connection vs dockerode exec true, median',
          unit: 'ms',
          ours: median(warmOurs),
          raw: median(warmRaw),
        },
      ];
    } finally {
      await shoal.request('DELETE', `/v1/sandbox/${sandbox.id}`);
      fs.rmSync(workDir, { recursive: true, force: true });
    }
  },
};
