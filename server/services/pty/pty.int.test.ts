import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../spec/sandbox';
import type { PtySession } from '../../spec/pty';
import { browserSessionCookie } from '../../testing/browser-session';
import { sandboxContainer } from '../../testing/raw-docker';
import { restoreRunning } from '../../testing/sandbox-fixture';
import { eventually, startShoal, type ShoalServer } from '../../testing/shoal-server';

const SUBPROTOCOL = 'shoal.pty.v1';
/** The prompt of the default image's root shell ends in `# `. */
const PROMPT = /# $/;

interface Closed {
  code: number;
  reason: string;
}

/** A WebSocket terminal client that records everything it receives. */
class Term {
  readonly output: Buffer[] = [];
  readonly controls: Record<string, unknown>[] = [];
  readonly frameKinds: ('binary' | 'text')[] = [];
  readonly closed: Promise<Closed>;
  readonly opened: Promise<void>;
  private listeners: (() => void)[] = [];

  constructor(
    readonly ws: WebSocket,
    readonly framed: boolean,
  ) {
    this.opened = new Promise((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('unexpected-response', (_request, response) => reject(new Error(`refused: ${response.statusCode}`)));
      ws.once('error', reject);
    });
    this.closed = new Promise((resolve) => {
      ws.once('close', (code, reason) => {
        resolve({ code, reason: reason.toString() });
        this.notify();
      });
    });
    ws.on('message', (data: Buffer, isBinary) => {
      this.frameKinds.push(isBinary ? 'binary' : 'text');
      const bytes = !framed ? data : data[0] === 0 ? data.subarray(1) : null;
      if (bytes) {
        this.output.push(bytes);
        this.total += bytes.length;
        this.held += bytes.length;
        // Floods (yes) would fill memory: keep the newest 8 MiB.
        while (this.held > 8 * 1024 * 1024 && this.output.length > 1) this.held -= this.output.shift()!.length;
      } else this.controls.push(JSON.parse(data.subarray(1).toString()));
      this.notify();
    });
  }

  private total = 0;
  private held = 0;

  /** Everything received (of a flood, only the newest 8 MiB). */
  bytes(): Buffer {
    return Buffer.concat(this.output);
  }

  get length(): number {
    return this.total;
  }

  text(): string {
    return this.bytes().toString('utf8');
  }

  /** Text received after byte `from` of this client's output (only the newest `window` bytes of it). */
  since(from: number, window = Number.POSITIVE_INFINITY): string {
    const start = Math.max(from, this.total - window);
    const parts: Buffer[] = [];
    let at = this.total;
    for (let i = this.output.length - 1; i >= 0 && at > start; i--) {
      const chunk = this.output[i];
      at -= chunk.length;
      parts.unshift(at >= start ? chunk : chunk.subarray(start - at));
    }
    return Buffer.concat(parts).toString('utf8');
  }

  send(data: string | Buffer): void {
    if (this.framed) this.ws.send(Buffer.concat([Buffer.of(0), Buffer.from(data)]));
    else this.ws.send(Buffer.from(data));
  }

  control(message: Record<string, unknown>): void {
    this.ws.send(Buffer.concat([Buffer.of(1), Buffer.from(JSON.stringify(message))]));
  }

  /** Waits until the output after byte `from` matches. */
  waitFor(pattern: RegExp | string, from = 0, timeoutMs = 20_000): Promise<void> {
    const matches = () => {
      // Patterns are short: the newest 256 KiB are enough, and floods stay cheap to scan.
      const text = this.since(from, 256 * 1024);
      return typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text);
    };
    return new Promise((resolve, reject) => {
      const check = () => {
        if (matches()) {
          cleanup();
          resolve();
        } else if (this.ws.readyState === WebSocket.CLOSED) {
          cleanup();
          reject(
            new Error(
              `socket closed before ${String(pattern)} appeared; output: ${JSON.stringify(this.since(from, 2000))}`,
            ),
          );
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out waiting for ${String(pattern)}; output: ${JSON.stringify(this.since(from, 500))}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.listeners = this.listeners.filter((listener) => listener !== check);
      };
      this.listeners.push(check);
      check();
    });
  }

  /** Runs a command and waits until `expected` appears in what follows. */
  async run(command: string, expected: RegExp | string): Promise<string> {
    const from = this.length;
    this.send(`${command}\r`);
    await this.waitFor(expected, from);
    return this.since(from);
  }

  close(): void {
    this.ws.close();
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

describe('PTY sessions and the terminal WebSocket', () => {
  let shoal: ShoalServer;
  let sandbox: Sandbox;

  const wsUrl = (sandboxId: string, sid: string, query = '', prefix = '/v1') =>
    `${shoal.url.replace(/^http/, 'ws')}${prefix}/sandbox/${sandboxId}/pty/${sid}/connect${query}`;

  function open(
    sid: string,
    options: {
      framed?: boolean;
      query?: string;
      headers?: Record<string, string>;
      sandboxId?: string;
      prefix?: string;
    } = {},
  ): Term {
    const headers = options.headers ?? { authorization: `Bearer ${shoal.apiKey}` };
    const ws = new WebSocket(
      wsUrl(options.sandboxId ?? sandbox.id, sid, options.query, options.prefix),
      options.framed ? [SUBPROTOCOL] : [],
      { headers },
    );
    return new Term(ws, options.framed ?? false);
  }

  async function connect(sid: string, options: Parameters<typeof open>[1] = {}): Promise<Term> {
    const term = open(sid, options);
    await term.opened;
    return term;
  }

  /** Connects expecting a refusal before the upgrade; returns the HTTP status and JSON body. */
  function refusal(
    sid: string,
    options: { headers?: Record<string, string>; sandboxId?: string } = {},
  ): Promise<{ status: number; body: { message?: string } }> {
    const ws = new WebSocket(wsUrl(options.sandboxId ?? sandbox.id, sid), {
      headers: options.headers ?? { authorization: `Bearer ${shoal.apiKey}` },
    });
    return new Promise((resolve, reject) => {
      ws.once('open', () => {
        ws.close();
        reject(new Error('the upgrade was accepted'));
      });
      ws.once('error', () => undefined);
      ws.once('unexpected-response', (_request, response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
      });
    });
  }

  async function createSession(body: Record<string, unknown> = {}, sandboxId = sandbox.id): Promise<PtySession> {
    const response = await shoal.request<PtySession>('POST', `/v1/sandbox/${sandboxId}/pty`, { body });
    expect(response.status, response.text).toBe(201);
    return response.body;
  }

  /** A connected shell that has printed its first prompt. */
  async function shell(body: Record<string, unknown> = {}, options: { framed?: boolean } = {}) {
    const session = await createSession(body);
    const term = await connect(session.id, options);
    await term.waitFor(PROMPT);
    return { session, term };
  }

  beforeAll(async () => {
    shoal = await startShoal();
    sandbox = await restoreRunning(shoal, { timeout: 600 });
  });

  afterAll(async () => {
    await shoal?.stop();
  });

  describe('HTTP routes', () => {
    it('creates a session with the documented defaults and every field present', async () => {
      const session = await createSession();
      expect(session).toEqual({
        id: expect.stringMatching(/^[A-Za-z0-9_-]{1,64}$/),
        cwd: '/workspace',
        envs: { TERM: 'xterm-256color' },
        cols: 80,
        rows: 24,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        active: true,
        lazy_start: false,
      });
      const listed = await shoal.request<{ items: PtySession[] }>('GET', `/v1/sandbox/${sandbox.id}/pty`);
      expect(listed.status).toBe(200);
      expect(listed.body.items.map((item) => item.id)).toContain(session.id);
      const got = await shoal.request<PtySession>('GET', `/v1/sandbox/${sandbox.id}/pty/${session.id}`);
      expect(got.body).toEqual(session);
    });

    it('honours a client id, cwd, envs and size, and refuses a duplicate id with 409', async () => {
      const session = await createSession({
        id: 'my_term-1',
        cwd: '/tmp',
        envs: { FOO: 'bar baz', TERM: 'vt100' },
        cols: 100,
        rows: 30,
      });
      expect(session).toMatchObject({
        id: 'my_term-1',
        cwd: '/tmp',
        envs: { FOO: 'bar baz', TERM: 'vt100' },
        cols: 100,
        rows: 30,
      });
      const term = await connect('my_term-1');
      const out = await term.run('echo "[$PWD|$FOO|$TERM|$(stty size)]"', /\[\/tmp\|bar baz\|vt100\|30 100\]/);
      expect(out).toContain('[/tmp|bar baz|vt100|30 100]');
      term.close();
      const duplicate = await shoal.request('POST', `/v1/sandbox/${sandbox.id}/pty`, { body: { id: 'my_term-1' } });
      expect(duplicate.status).toBe(409);
    });

    it('validates the body and refuses a cwd that does not exist', async () => {
      const bad = await shoal.request<{ errors: { field: string }[] }>('POST', `/v1/sandbox/${sandbox.id}/pty`, {
        body: { id: 'has space', cols: 0, rows: 1001, lazy_start: 'yes' },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.errors.map((error) => error.field).sort()).toEqual(['cols', 'id', 'lazy_start', 'rows']);
      const fractional = await shoal.request('POST', `/v1/sandbox/${sandbox.id}/pty`, { body: { cols: 80.5 } });
      expect(fractional.status).toBe(400);
      const missing = await shoal.request<{ message: string }>('POST', `/v1/sandbox/${sandbox.id}/pty`, {
        body: { cwd: '/no/such/dir' },
      });
      expect(missing.status).toBe(400);
      expect(missing.body.message).toContain('/no/such/dir');
    });

    it('answers 404 for an unknown session or sandbox', async () => {
      expect((await shoal.request('GET', `/v1/sandbox/${sandbox.id}/pty/nope`)).status).toBe(404);
      expect((await shoal.request('DELETE', `/v1/sandbox/${sandbox.id}/pty/nope`)).status).toBe(404);
      const resize = await shoal.request('POST', `/v1/sandbox/${sandbox.id}/pty/nope/resize`, {
        body: { cols: 10, rows: 10 },
      });
      expect(resize.status).toBe(404);
      expect((await shoal.request('POST', '/v1/sandbox/sbx-unknown00000/pty', { body: {} })).status).toBe(404);
    });
  });

  describe('terminal I/O', () => {
    it('echoes input back, in binary frames only', async () => {
      const { term } = await shell();
      const out = await term.run('echo hel""lo-$((6*7))', 'hello-42');
      expect(out).toContain('hello-42');
      expect(term.frameKinds.every((kind) => kind === 'binary')).toBe(true);
      term.close();
    });

    it('accepts text frames as input', async () => {
      const { term } = await shell();
      const from = term.length;
      term.ws.send('echo text-$((5+5))\r');
      await term.waitFor('text-10', from);
      term.close();
    });

    it('resizes the real window over HTTP', async () => {
      const { session, term } = await shell();
      const resized = await shoal.request<PtySession>('POST', `/v1/sandbox/${sandbox.id}/pty/${session.id}/resize`, {
        body: { cols: 120, rows: 40 },
      });
      expect(resized.status).toBe(200);
      expect(resized.body).toMatchObject({ id: session.id, cols: 120, rows: 40, active: true });
      await term.run('stty size', /\r40 120\r\n/);
      term.close();
    });

    it('resizes in band on the framed protocol', async () => {
      const { session, term } = await shell({}, { framed: true });
      term.control({ type: 'resize', cols: 90, rows: 33 });
      await eventually(async () => {
        const got = await shoal.request<PtySession>('GET', `/v1/sandbox/${sandbox.id}/pty/${session.id}`);
        return got.body.cols === 90 ? true : undefined;
      });
      await term.run('stty size', /\r33 90\r\n/);
      term.control({ type: 'resize', cols: 0, rows: 5 });
      await eventually(async () => (term.controls.some((c) => c.type === 'error') ? true : undefined), 5000);
      term.close();
    });

    it('starts a lazy session on the first connection, with the size stored meanwhile', async () => {
      const session = await createSession({ lazy_start: true, cols: 100, rows: 30 });
      expect(session).toMatchObject({ active: false, lazy_start: true });
      const resized = await shoal.request<PtySession>('POST', `/v1/sandbox/${sandbox.id}/pty/${session.id}/resize`, {
        body: { cols: 101, rows: 31 },
      });
      expect(resized.body).toMatchObject({ active: false, cols: 101, rows: 31 });
      const before = await shoal.request<PtySession>('GET', `/v1/sandbox/${sandbox.id}/pty/${session.id}`);
      expect(before.body.active).toBe(false);
      const term = await connect(session.id);
      await term.waitFor(PROMPT);
      const after = await shoal.request<PtySession>('GET', `/v1/sandbox/${sandbox.id}/pty/${session.id}`);
      expect(after.body.active).toBe(true);
      await term.run('stty size', /\r31 101\r\n/);
      term.close();
    });

    it('closes 1000 {"exitCode":0} or 1011 {"exitCode":N} when the shell exits, then refuses with 409', async () => {
      const zero = await shell();
      zero.term.send('exit 0\r');
      expect(await zero.term.closed).toEqual({ code: 1000, reason: '{"exitCode":0}' });

      const three = await shell({}, { framed: true });
      three.term.send('exit 3\r');
      expect(await three.term.closed).toEqual({ code: 1011, reason: '{"exitCode":3}' });
      expect(three.term.controls.at(-1)).toEqual({ type: 'exit', exitCode: 3 });

      const got = await shoal.request<PtySession>('GET', `/v1/sandbox/${sandbox.id}/pty/${three.session.id}`);
      expect(got.body).toMatchObject({ active: false, exit_code: 3 });
      const refused = await refusal(three.session.id);
      expect(refused.status).toBe(409);
      expect(refused.body.message).toContain('exited');
    });

    it('sends the output to every attached client', async () => {
      const { session, term: first } = await shell();
      const second = await connect(session.id);
      await second.waitFor(PROMPT);
      const [fromFirst, fromSecond] = [first.length, second.length];
      first.send('echo both-$((1+1))\r');
      await Promise.all([first.waitFor('both-2', fromFirst), second.waitFor('both-2', fromSecond)]);
      second.send('echo other-$((2+1))\r');
      await Promise.all([first.waitFor('other-3', fromFirst), second.waitFor('other-3', fromSecond)]);
      first.close();
      second.close();
    });

    it('replays earlier output on reconnect, unless replay=0', async () => {
      const { session, term } = await shell();
      await term.run('echo first-$((2*2))', 'first-4');
      term.close();
      await term.closed;

      const again = await connect(session.id);
      await again.waitFor('first-4');
      again.close();

      const fresh = await connect(session.id, { query: '?replay=0' });
      await fresh.run('echo marker-$((3*3))', 'marker-9');
      expect(fresh.text()).not.toContain('first-4');
      fresh.close();
    });

    it('resumes at ?offset=N on the framed protocol with nothing lost or repeated', async () => {
      const { session, term: first } = await shell({}, { framed: true });
      const hello = first.controls[0] as { type: string; offset: number; lost: number };
      expect(hello).toMatchObject({ type: 'hello', offset: 0, lost: 0, cols: 80, rows: 24 });
      await first.run('echo part-$((10+1))', 'part-11');
      const received = first.bytes();
      first.close();
      await first.closed;

      // Output produced while the framed client is away.
      const other = await connect(session.id, { query: '?replay=0' });
      await other.run('echo gap-$((10+2))', 'gap-12');
      other.close();

      const resumed = await connect(session.id, { framed: true, query: `?offset=${hello.offset + received.length}` });
      // hello is the first frame after the upgrade, but may arrive just after 'open'.
      await eventually(async () => resumed.controls[0], 5_000, 'hello');
      expect(resumed.controls[0]).toMatchObject({ type: 'hello', offset: hello.offset + received.length, lost: 0 });
      await resumed.run('echo end-$((10+3))', 'end-13');

      const full = await connect(session.id, { framed: true, query: '?offset=0' });
      await full.waitFor('end-13');
      const stitched = Buffer.concat([received, resumed.bytes()]);
      const compared = Math.min(stitched.length, full.length);
      expect(full.bytes().subarray(0, compared).equals(stitched.subarray(0, compared))).toBe(true);
      const text = stitched.subarray(0, compared).toString();
      expect(text).toContain('gap-12');
      expect(text).toContain('end-13');
      expect(text.split('part-11').length).toBe(2); // printed once: nothing repeated at the seam
      resumed.close();
      full.close();
    });

    it('starts at the oldest buffered byte when the offset is no longer buffered, and says so', async () => {
      const { session, term } = await shell();
      await term.run('head -c 700000 /dev/zero | tr "\\0" x; echo; echo big-$((20+1))', 'big-21');
      term.close();
      const late = await connect(session.id, { framed: true, query: '?offset=0' });
      await late.waitFor('big-21');
      const hello = late.controls[0] as { offset: number; lost: number };
      expect(hello.offset).toBeGreaterThan(0);
      expect(hello.lost).toBe(hello.offset);
      late.close();
    });

    it('recovers from a flood (yes) with Ctrl-C and keeps working', async () => {
      const { term } = await shell();
      const from = term.length;
      term.send('yes\r');
      await term.waitFor(/(y\r\n){1000}/, from);
      const interruptedAt = term.length;
      term.send('\x03');
      await term.waitFor(PROMPT, interruptedAt);
      await term.run('echo after-flood-$((3*3))', 'after-flood-9');
      term.close();
    });

    it('refuses input frames over 64 KiB with 1009', async () => {
      for (const framed of [false, true]) {
        const { term } = await shell({}, { framed });
        term.send(Buffer.alloc(70_000, 0x61));
        expect((await term.closed).code).toBe(1009);
      }
    });

    it('closes a client that stops reading with 1008 and keeps serving the others', async () => {
      const { session, term: reader } = await shell();
      const stalled = await connect(session.id, { query: '?replay=0' });
      const socket = (stalled.ws as unknown as { _socket: import('node:net').Socket })._socket;
      const from = reader.length;
      reader.send('yes\r');
      await reader.waitFor(/(y\r\n){100}/, from);
      socket.pause();
      // The stalled client holds everyone back (the shell is paused) until it is dropped: the
      // reader's output stops for a while, then flows again.
      let last = reader.length;
      let lastGrowth = Date.now();
      let stalledSeen = false;
      await eventually(
        async () => {
          const now = Date.now();
          if (reader.length !== last) {
            if (stalledSeen) return true;
            last = reader.length;
            lastGrowth = now;
          } else if (now - lastGrowth > 1000) {
            stalledSeen = true;
          }
          return undefined;
        },
        30_000,
        'the stalled client to be dropped',
      );
      socket.resume();
      expect((await stalled.closed).code).toBe(1008);
      const interruptedAt = reader.length;
      reader.send('\x03');
      await reader.waitFor(PROMPT, interruptedAt);
      await reader.run('echo still-here-$((4*4))', 'still-here-16');
      reader.close();
    });
  });

  describe('DELETE and sandbox end', () => {
    it('DELETE kills the shell and its jobs, closes sockets with 1001 and forgets the session', async () => {
      const { session, term } = await shell();
      await term.run('sleep 4242 & echo started-$((1+4))', 'started-5');
      const deleted = await shoal.request('DELETE', `/v1/sandbox/${sandbox.id}/pty/${session.id}`);
      expect(deleted.status).toBe(204);
      expect((await term.closed).code).toBe(1001);
      expect((await shoal.request('GET', `/v1/sandbox/${sandbox.id}/pty/${session.id}`)).status).toBe(404);
      const container = await sandboxContainer(sandbox.id);
      const exec = await container.exec({ Cmd: ['ps', '-eo', 'args'], AttachStdout: true, Tty: true });
      const stream = await exec.start({ hijack: true, stdin: false, Tty: true } as never);
      let ps = '';
      await new Promise((resolve) => {
        stream.on('data', (chunk: Buffer) => (ps += chunk));
        stream.on('end', resolve);
      });
      expect(ps).toContain('ps -eo args');
      expect(ps).not.toContain('sleep 4242');
    });

    it('deleting the sandbox closes its terminals', async () => {
      const other = await restoreRunning(shoal);
      const session = await createSession({}, other.id);
      const term = await connect(session.id, { sandboxId: other.id });
      await term.waitFor(PROMPT);
      expect((await shoal.request('DELETE', `/v1/sandbox/${other.id}`)).status).toBe(204);
      const closed = await term.closed;
      expect(closed.code).toBe(1001);
      expect(closed.reason).toContain('deleted');
    });
  });

  describe('WebSocket refusals before the upgrade', () => {
    let sid: string;
    beforeAll(async () => {
      sid = (await createSession({ lazy_start: true })).id;
    });

    it('404 for an unknown sandbox or session', async () => {
      const noSandbox = await refusal(sid, { sandboxId: 'sbx-unknown00000' });
      expect(noSandbox).toEqual({ status: 404, body: { message: "Sandbox 'sbx-unknown00000' not found" } });
      const noSession = await refusal('no-such-session');
      expect(noSession).toEqual({ status: 404, body: { message: "PTY session 'no-such-session' not found" } });
    });

    it('401 without a key or with a wrong one', async () => {
      for (const headers of [{}, { authorization: 'Bearer sk_wrong_000000000000000000' }] as Record<string, string>[]) {
        expect(await refusal(sid, { headers })).toEqual({
          status: 401,
          body: { message: 'Invalid or missing API key' },
        });
      }
    });

    it('accepts every documented key header and the /api/v1 path', async () => {
      for (const headers of [
        { 'shoal-authorization': shoal.apiKey },
        { 'leap0-authorization': `Bearer ${shoal.apiKey}` },
      ] as Record<string, string>[]) {
        const term = await connect(sid, { headers, query: '?replay=0' });
        term.close();
      }
      const term = await connect(sid, { prefix: '/api/v1', query: '?replay=0' });
      term.close();
    });

    it('403 for a session cookie with a foreign Origin; the same origin is accepted', async () => {
      const cookie = await browserSessionCookie(shoal);
      const host = new URL(shoal.url).host;

      const foreign = await refusal(sid, { headers: { cookie, origin: 'https://evil.example' } });
      expect(foreign.status).toBe(403);
      const missing = await refusal(sid, { headers: { cookie } });
      expect(missing.status).toBe(403);
      const same = await connect(sid, { headers: { cookie, origin: `http://${host}` }, query: '?replay=0' });
      same.close();
    });
  });
});
