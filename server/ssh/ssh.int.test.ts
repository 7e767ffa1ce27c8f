import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, utils, type ClientChannel } from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../spec/sandbox';
import type { SshAccess } from '../spec/ssh';
import { restoreRunning, sandboxState } from '../testing/sandbox-fixture';
import { eventually, sleep, startShoal, type ShoalServer } from '../testing/shoal-server';
import {
  askpassEnv,
  requireOpenSshClient,
  SFTP_BINARY,
  SSH_BINARY,
  SSH_CLIENT_OPTIONS,
  writeAskpass,
} from '../testing/ssh-client';
import { HOST_KEY_FILE } from './host-key';

const CLIENT_OPTIONS = [...SSH_CLIENT_OPTIONS, '-o', 'ConnectTimeout=30'];

let workDir: string;
let askpass: string;

interface Login {
  port: number;
  user: string;
  host: string;
  password: string;
}

/** The credential as a user would use it: the pieces of `ssh_command` plus the password. */
function loginOf(access: SshAccess): Login {
  const match = /^ssh -p (\d+) (\S+)@(\S+)$/.exec(access.ssh_command);
  if (!match) throw new Error(`unexpected ssh_command: ${access.ssh_command}`);
  return { port: Number(match[1]), user: match[2], host: match[3], password: access.password };
}

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
  stdoutBytes: Buffer;
}

interface Running {
  child: ChildProcess;
  stdout(): string;
  done: Promise<Finished>;
}

/** Runs the real client; the password comes from an askpass helper, as a person would type it. */
function client(binary: string, args: string[], password: string, input = ''): Running {
  const child = spawn(binary, args, {
    env: { ...askpassEnv(askpass, password), TERM: 'xterm-256color' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout!.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr!.on('data', (chunk: Buffer) => err.push(chunk));
  child.stdin!.on('error', () => undefined);
  child.stdin!.end(input);
  const done = new Promise<Finished>((resolve) => {
    child.once('close', (code) => {
      const stdoutBytes = Buffer.concat(out);
      resolve({ code, stdout: stdoutBytes.toString(), stderr: Buffer.concat(err).toString(), stdoutBytes });
    });
  });
  return { child, stdout: () => Buffer.concat(out).toString(), done };
}

function ssh(
  login: Login,
  command: string[],
  options: { input?: string; tty?: boolean; clientArgs?: string[] } = {},
): Running {
  return client(
    SSH_BINARY,
    [
      ...CLIENT_OPTIONS,
      ...(options.tty ? ['-tt'] : []),
      ...(options.clientArgs ?? []),
      '-p',
      String(login.port),
      `${login.user}@${login.host}`,
      ...command,
    ],
    login.password,
    options.input,
  );
}

function sftp(login: Login, commands: string): Running {
  return client(
    SFTP_BINARY,
    [...CLIENT_OPTIONS, '-P', String(login.port), `${login.user}@${login.host}`],
    login.password,
    commands,
  );
}

function gatewayPort(server: ShoalServer): number {
  const match = /SSH gateway listening on port (\d+)/.exec(server.output());
  if (!match) throw new Error(`the SSH gateway did not report its port:\n${server.output()}`);
  return Number(match[1]);
}

/** The host key the gateway presents, read with ssh2's client (no login attempted). */
function presentedHostKey(port: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let key: Buffer | null = null;
    const connection = new Client();
    connection.on('error', () => (key ? resolve(key) : reject(new Error('no host key presented'))));
    connection.connect({
      host: '127.0.0.1',
      port,
      username: 'probe',
      hostVerifier: (presented: Buffer) => {
        key = presented;
        return false; // stop here: the key is all we wanted
      },
    });
  });
}

async function createAccess(server: ShoalServer, sandboxId: string): Promise<SshAccess> {
  const response = await server.request<SshAccess>('POST', `/v1/sandbox/${sandboxId}/ssh/access`);
  expect(response.status).toBe(201);
  return response.body;
}

describe('SSH access and the SSH gateway', () => {
  let shoal: ShoalServer;
  let port: number;
  let sandbox: Sandbox;
  let other: Sandbox;
  const passwordsSeen: string[] = [];

  beforeAll(async () => {
    requireOpenSshClient();
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-ssh-test-'));
    askpass = writeAskpass(workDir);
    shoal = await startShoal({ env: { SHOAL_SSH_PORT: '0' } });
    port = gatewayPort(shoal);
    // One after the other: the first create on a fresh server learns whether the engine takes a
    // disk size limit, and a parallel second one can fail while it does (reported to the lead).
    sandbox = await restoreRunning(shoal);
    other = await restoreRunning(shoal);
  });

  afterAll(async () => {
    await shoal?.stop();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  });

  describe('credential routes', () => {
    it('creates a credential: 201 with the documented fields and a working ssh_command', async () => {
      const access = await createAccess(shoal, sandbox.id);
      passwordsSeen.push(access.password);
      expect(access).toEqual({
        id: expect.stringMatching(/^ssh-[a-z0-9]+$/),
        sandbox_id: sandbox.id,
        password: expect.any(String),
        expires_at: expect.any(String),
        created_at: expect.any(String),
        updated_at: expect.any(String),
        ssh_command: `ssh -p ${port} ${access.id}@127.0.0.1`,
      });
      // Default lifetime: 24 hours.
      expect(Date.parse(access.expires_at) - Date.parse(access.created_at)).toBe(24 * 3600 * 1000);
    });

    it('validates a pair: true when right, false when wrong, in both path forms', async () => {
      const access = await createAccess(shoal, sandbox.id);
      passwordsSeen.push(access.password);
      const base = `/v1/sandbox/${sandbox.id}/ssh`;
      const right = await shoal.request('POST', `${base}/validate`, {
        body: { id: access.id, password: access.password },
      });
      expect(right.status).toBe(200);
      expect(right.body).toEqual({ valid: true, sandbox_id: sandbox.id });
      const wrong = await shoal.request('POST', `${base}/validate`, { body: { id: access.id, password: 'nope' } });
      expect(wrong.status).toBe(200);
      expect(wrong.body).toEqual({ valid: false, sandbox_id: sandbox.id });
      const byPath = await shoal.request('POST', `${base}/${access.id}/validate`, {
        body: { password: access.password },
      });
      expect(byPath.body).toEqual({ valid: true, sandbox_id: sandbox.id });
      const byPathWrong = await shoal.request('POST', `/api/v1/sandbox/${sandbox.id}/ssh/${access.id}/validate/`, {
        body: { password: `${access.password}x` },
      });
      expect(byPathWrong.status).toBe(200);
      expect(byPathWrong.body).toEqual({ valid: false, sandbox_id: sandbox.id });
    });

    it('answers 404 for an unknown id, another sandbox’s id and an unknown sandbox', async () => {
      const mine = await createAccess(shoal, sandbox.id);
      passwordsSeen.push(mine.password);
      const unknown = await shoal.request('POST', `/v1/sandbox/${sandbox.id}/ssh/validate`, {
        body: { id: 'ssh-doesnotexist', password: 'x' },
      });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ message: "SSH access 'ssh-doesnotexist' not found" });
      for (const [method, route, body] of [
        ['POST', `/v1/sandbox/${other.id}/ssh/validate`, { id: mine.id, password: mine.password }],
        ['POST', `/v1/sandbox/${other.id}/ssh/${mine.id}/validate`, { password: mine.password }],
        ['POST', `/v1/sandbox/${other.id}/ssh/${mine.id}/regen`, undefined],
        ['DELETE', `/v1/sandbox/${other.id}/ssh/${mine.id}`, undefined],
      ] as const) {
        const response = await shoal.request(method, route, { body });
        expect(response.status, `${method} ${route}`).toBe(404);
        expect(response.body).toEqual({ message: `SSH access '${mine.id}' not found` });
      }
      const noSandbox = await shoal.request('POST', '/v1/sandbox/sbx-nothere/ssh/access');
      expect(noSandbox.status).toBe(404);
      expect(noSandbox.body).toEqual({ message: "Sandbox 'sbx-nothere' not found" });
      // The refused calls changed nothing.
      const still = await shoal.request('POST', `/v1/sandbox/${sandbox.id}/ssh/${mine.id}/validate`, {
        body: { password: mine.password },
      });
      expect(still.body).toEqual({ valid: true, sandbox_id: sandbox.id });
    });

    it('answers 400 naming missing fields, and 401 without a key', async () => {
      const response = await shoal.request<{ message: string; errors: { field: string }[] }>(
        'POST',
        `/v1/sandbox/${sandbox.id}/ssh/validate`,
        { body: {} },
      );
      expect(response.status).toBe(400);
      expect(response.body.message).toBe('Invalid request');
      expect(response.body.errors.map((error) => error.field).sort()).toEqual(['id', 'password']);
      const anonymous = await shoal.request('POST', `/v1/sandbox/${sandbox.id}/ssh/access`, { auth: false });
      expect(anonymous.status).toBe(401);
    });

    it('regenerates (by id and as the sandbox’s): 200, a new password, the old one false, a fresh expiry', async () => {
      const access = await createAccess(shoal, sandbox.id);
      passwordsSeen.push(access.password);
      const byId = await shoal.request<SshAccess>('POST', `/v1/sandbox/${sandbox.id}/ssh/${access.id}/regen`);
      expect(byId.status).toBe(200);
      expect(byId.body.id).toBe(access.id);
      expect(byId.body.password).not.toBe(access.password);
      expect(byId.body.ssh_command).toBe(access.ssh_command);
      expect(Date.parse(byId.body.expires_at)).toBeGreaterThanOrEqual(Date.parse(access.expires_at));
      expect(byId.body.updated_at >= access.updated_at).toBe(true);
      const current = await shoal.request<SshAccess>('POST', `/v1/sandbox/${sandbox.id}/ssh/regen`);
      expect(current.status).toBe(200);
      expect(current.body.id).toBe(access.id);
      passwordsSeen.push(byId.body.password, current.body.password);
      const validate = (password: string) =>
        shoal.request('POST', `/v1/sandbox/${sandbox.id}/ssh/validate`, { body: { id: access.id, password } });
      expect((await validate(access.password)).body).toEqual({ valid: false, sandbox_id: sandbox.id });
      expect((await validate(byId.body.password)).body).toEqual({ valid: false, sandbox_id: sandbox.id });
      expect((await validate(current.body.password)).body).toEqual({ valid: true, sandbox_id: sandbox.id });
    });

    it('keeps one credential per sandbox: creating another makes the previous one unknown', async () => {
      const first = await createAccess(shoal, sandbox.id);
      const second = await createAccess(shoal, sandbox.id);
      passwordsSeen.push(first.password, second.password);
      const old = await shoal.request('POST', `/v1/sandbox/${sandbox.id}/ssh/${first.id}/validate`, {
        body: { password: first.password },
      });
      expect(old.status).toBe(404);
    });

    it('deletes by id and as the sandbox’s credential: 204, then 404', async () => {
      const first = await createAccess(shoal, sandbox.id);
      passwordsSeen.push(first.password);
      const deleted = await shoal.request('DELETE', `/v1/sandbox/${sandbox.id}/ssh/${first.id}`);
      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe('');
      expect((await shoal.request('DELETE', `/v1/sandbox/${sandbox.id}/ssh/${first.id}`)).status).toBe(404);
      const gone = await shoal.request('POST', `/v1/sandbox/${sandbox.id}/ssh/validate`, {
        body: { id: first.id, password: first.password },
      });
      expect(gone.status).toBe(404);

      const second = await createAccess(shoal, sandbox.id);
      passwordsSeen.push(second.password);
      expect((await shoal.request('DELETE', `/v1/sandbox/${sandbox.id}/ssh/access`)).status).toBe(204);
      const again = await shoal.request('DELETE', `/v1/sandbox/${sandbox.id}/ssh/access`);
      expect(again.status).toBe(404);
      expect(again.body).toEqual({ message: `SSH access for sandbox '${sandbox.id}' not found` });
      expect((await shoal.request('POST', `/v1/sandbox/${sandbox.id}/ssh/regen`)).status).toBe(404);
    });

    it('lists the routes in the OpenAPI document', async () => {
      const document = await shoal.request<{ paths: Record<string, Record<string, unknown>> }>(
        'GET',
        '/v1/openapi.json',
      );
      const paths = document.body.paths;
      expect(Object.keys(paths['/v1/sandbox/{sandboxID}/ssh/access']).sort()).toEqual(['delete', 'post']);
      expect(paths['/v1/sandbox/{sandboxID}/ssh/{sshID}/validate']).toHaveProperty('post');
    });
  });

  describe('logging in with OpenSSH', () => {
    let login: Login;

    beforeAll(async () => {
      const access = await createAccess(shoal, sandbox.id);
      passwordsSeen.push(access.password);
      login = loginOf(access);
    });

    it('runs a command: stdout, stderr and the exit status come back separately', async () => {
      const result = await ssh(login, ['echo out-$((40+2)); echo err-line >&2; pwd; exit 3']).done;
      expect(result.code).toBe(3);
      expect(result.stdout).toBe('out-42\n/workspace\n');
      expect(result.stderr).toContain('err-line');
      expect(result.stderr).not.toContain('out-42');
    });

    it('streams stdin to the command and ends it at EOF', async () => {
      const input = `${'line of input\n'.repeat(5000)}last\n`;
      const result = await ssh(login, ['tr a-z A-Z | tail -n 2; wc -l'], { input }).done;
      // `tail` consumed everything, so wc sees nothing left: 0 lines.
      expect(result.code).toBe(0);
      expect(result.stdout).toBe('LINE OF INPUT\nLAST\n0\n');
    });

    it('opens an interactive shell with a terminal', async () => {
      const result = await ssh(login, [], {
        tty: true,
        input: 'echo "shell-$((6*7)) term=$TERM tty=$(tty)"\nexit 7\n',
      }).done;
      expect(result.code).toBe(7);
      expect(result.stdout).toMatch(/shell-42 term=xterm-256color tty=\/dev\/pts\/\d+/);
    });

    it('follows window-change: the terminal takes the new size', async () => {
      const connection = new Client();
      await new Promise<void>((resolve, reject) => {
        connection.once('ready', () => resolve());
        connection.once('error', reject);
        connection.connect({ host: login.host, port: login.port, username: login.user, password: login.password });
      });
      try {
        const shell = await new Promise<ClientChannel>((resolve, reject) =>
          connection.shell({ cols: 80, rows: 24, term: 'xterm' }, (error, stream) =>
            error ? reject(error) : resolve(stream),
          ),
        );
        let output = '';
        shell.on('data', (chunk: Buffer) => (output += chunk.toString()));
        shell.write('stty size\n');
        await eventually(async () => (/^24 80\r?$/m.test(output) ? true : undefined), 20_000, 'stty size 24 80');
        shell.setWindow(40, 132, 0, 0);
        shell.write('stty size\n');
        await eventually(async () => (/^40 132\r?$/m.test(output) ? true : undefined), 20_000, 'stty size 40 132');
        const exited = new Promise<number>((resolve) => shell.once('exit', (code: number) => resolve(code)));
        shell.write('exit 0\n');
        expect(await exited).toBe(0);
      } finally {
        connection.end();
      }
    });

    it('transfers files both ways with sftp', async () => {
      const content = randomBytes(300_000);
      const local = path.join(workDir, 'upload.bin');
      const back = path.join(workDir, 'download.bin');
      fs.writeFileSync(local, content);
      const result = await sftp(login, `put ${local} upload.bin\nget upload.bin ${back}\nbye\n`).done;
      expect(result.code).toBe(0);
      expect(fs.readFileSync(back).equals(content)).toBe(true);
      // It landed in the sandbox's work dir.
      const sum = await ssh(login, ['sha256sum /workspace/upload.bin']).done;
      expect(sum.stdout.split(' ')[0]).toBe(createHash('sha256').update(content).digest('hex'));
    });

    it('refuses a wrong password and an unknown user', async () => {
      const wrong = await ssh({ ...login, password: `${login.password}x` }, ['echo in']).done;
      expect(wrong.code).toBe(255);
      expect(wrong.stderr).toMatch(/Permission denied/);
      expect(wrong.stdout).toBe('');
      const unknown = await ssh({ ...login, user: 'ssh-nosuchuser' }, ['echo in']).done;
      expect(unknown.code).toBe(255);
      expect(unknown.stderr).toMatch(/Permission denied/);
    });

    it('refuses port forwarding: a login is no way around the sandbox’s network policy', async () => {
      // -W asks the server to connect to host:port for us (a direct-tcpip channel): here, Shoal's own HTTP port.
      const { port: httpPort } = new URL(shoal.url);
      const forwarded = await ssh(login, [], {
        clientArgs: ['-W', `127.0.0.1:${httpPort}`],
        input: 'GET / HTTP/1.0\r\n\r\n',
      }).done;
      expect(forwarded.code).toBe(255);
      expect(forwarded.stdout).not.toContain('HTTP/1');
      expect(forwarded.stderr).toMatch(/forwarding failed|open failed/);
    });

    it('resumes a paused sandbox on login', async () => {
      const access = await createAccess(shoal, other.id);
      passwordsSeen.push(access.password);
      expect((await shoal.request('POST', `/v1/sandbox/${other.id}/pause`)).status).toBe(201);
      expect(await sandboxState(shoal, other.id)).toBe('paused');
      const result = await ssh(loginOf(access), ['echo awake']).done;
      expect(result.code).toBe(0);
      expect(result.stdout).toBe('awake\n');
      expect(await sandboxState(shoal, other.id)).toBe('running');
    });

    it('refuses a deleted credential at once and ends its open sessions', async () => {
      const access = await createAccess(shoal, other.id);
      passwordsSeen.push(access.password);
      const otherLogin = loginOf(access);
      const open = ssh(otherLogin, ['echo started; sleep 600']);
      await eventually(async () => (open.stdout().includes('started') ? true : undefined), 30_000, 'session start');
      expect((await shoal.request('DELETE', `/v1/sandbox/${other.id}/ssh/${access.id}`)).status).toBe(204);
      const ended = await open.done;
      expect(ended.code).not.toBe(0);
      const refused = await ssh(otherLogin, ['echo in']).done;
      expect(refused.code).toBe(255);
      expect(refused.stderr).toMatch(/Permission denied/);
    });

    it('refuses logins to a sandbox that is gone, and ends sessions when it goes', async () => {
      const access = await createAccess(shoal, other.id);
      passwordsSeen.push(access.password);
      const otherLogin = loginOf(access);
      const open = ssh(otherLogin, ['echo started; sleep 600']);
      await eventually(async () => (open.stdout().includes('started') ? true : undefined), 30_000, 'session start');
      expect((await shoal.request('DELETE', `/v1/sandbox/${other.id}`)).status).toBe(204);
      expect((await open.done).code).not.toBe(0);
      const refused = await ssh(otherLogin, ['echo in']).done;
      expect(refused.code).toBe(255);
      expect(refused.stderr).toMatch(/Permission denied/);
    });

    it('never writes a password into the server output', () => {
      expect(passwordsSeen.length).toBeGreaterThan(10);
      const output = shoal.output();
      for (const password of passwordsSeen) expect(output).not.toContain(password);
    });
  });
});

describe('SSH credential expiry and the host key', () => {
  let shoal: ShoalServer;
  let dataDir: string;

  beforeAll(async () => {
    requireOpenSshClient();
    shoal = await startShoal({ env: { SHOAL_SSH_PORT: '0', SHOAL_SSH_TTL: '3' } });
    dataDir = shoal.dataDir;
  });

  afterAll(async () => {
    await shoal?.stop();
  });

  it('refuses an expired credential: validate is false and the login fails', async () => {
    const sandbox = await restoreRunning(shoal);
    const access = await createAccess(shoal, sandbox.id);
    expect(Date.parse(access.expires_at) - Date.parse(access.created_at)).toBe(3000);
    const fresh = await shoal.request('POST', `/v1/sandbox/${sandbox.id}/ssh/validate`, {
      body: { id: access.id, password: access.password },
    });
    expect(fresh.body).toEqual({ valid: true, sandbox_id: sandbox.id });
    await sleep(Math.max(0, Date.parse(access.expires_at) - Date.now()) + 200);
    const expired = await shoal.request('POST', `/v1/sandbox/${sandbox.id}/ssh/validate`, {
      body: { id: access.id, password: access.password },
    });
    expect(expired.status).toBe(200);
    expect(expired.body).toEqual({ valid: false, sandbox_id: sandbox.id });
    const refused = await ssh(loginOf(access), ['echo in']).done;
    expect(refused.code).toBe(255);
    expect(refused.stderr).toMatch(/Permission denied/);
  });

  it('generates the host key once and keeps presenting it after a restart', async () => {
    const keyFile = path.join(dataDir, HOST_KEY_FILE);
    expect((fs.statSync(keyFile).mode & 0o777).toString(8)).toBe('600');
    const parsed = utils.parseKey(fs.readFileSync(keyFile));
    if (parsed instanceof Error) throw parsed;
    const stored = parsed.getPublicSSH();
    expect((await presentedHostKey(gatewayPort(shoal))).equals(stored)).toBe(true);

    await shoal.kill();
    shoal = await startShoal({ dataDir, apiKey: shoal.apiKey, env: { SHOAL_SSH_PORT: '0', SHOAL_SSH_TTL: '3' } });
    expect((await presentedHostKey(gatewayPort(shoal))).equals(stored)).toBe(true);
  });
});
