import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import WebSocket from 'ws';
import type { PtySession } from '../../server/spec/pty';
import { median, percentile, runningSandbox, type BenchSection } from './lib';

const PROMPT = /# $/;
const KEYS = 'abcdefghijklmnopqrstuvwxyz';

/** A terminal byte pipe: ours (WebSocket) or raw (dockerode's hijacked exec stream). */
interface Pipe {
  send(data: string): void;
  /** Resolves once the output received after this call matches. */
  waitFor(pattern: RegExp | string): Promise<void>;
  close(): void;
}

/** Patterns are matched against the newest bytes only, so floods cost linear time. */
const WINDOW = 64 * 1024;

function pipeOver(
  onData: (listener: (chunk: Buffer) => void) => void,
  send: (data: string) => void,
  close: () => void,
): Pipe {
  let received = '';
  let waiter: { pattern: RegExp | string; from: number; resolve: () => void } | null = null;
  const check = () => {
    if (!waiter) return;
    const text = received.slice(Math.max(waiter.from, received.length - WINDOW));
    const hit = typeof waiter.pattern === 'string' ? text.includes(waiter.pattern) : waiter.pattern.test(text);
    if (hit) {
      const { resolve } = waiter;
      waiter = null;
      resolve();
    }
  };
  onData((chunk) => {
    received += chunk.toString('latin1');
    if (received.length > 4 * WINDOW) {
      const drop = received.length - WINDOW;
      received = received.slice(drop);
      if (waiter) waiter.from = Math.max(0, waiter.from - drop);
    }
    check();
  });
  return {
    send,
    waitFor(pattern) {
      return new Promise((resolve) => {
        waiter = { pattern, from: received.length, resolve };
      });
    },
    close,
  };
}

async function oursPipe(shoal: Parameters<BenchSection['run']>[0]['shoal'], sandboxId: string): Promise<Pipe> {
  const created = await shoal.request<PtySession>('POST', `/v1/sandbox/${sandboxId}/pty`, { body: {} });
  if (created.status !== 201) throw new Error(`create PTY failed: ${created.status} ${created.text}`);
  const url = `${shoal.url.replace(/^http/, 'ws')}/v1/sandbox/${sandboxId}/pty/${created.body.id}/connect?replay=0`;
  const ws = new WebSocket(url, { headers: { authorization: `Bearer ${shoal.apiKey}` } });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return pipeOver(
    (listener) => ws.on('message', (data: Buffer) => listener(data)),
    (data) => ws.send(Buffer.from(data)),
    () => ws.close(),
  );
}

async function rawPipe(container: Docker.Container): Promise<Pipe> {
  const exec = await container.exec({
    Cmd: ['bash', '-l'],
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    Tty: true,
    Env: ['TERM=xterm-256color'],
    WorkingDir: '/workspace',
  });
  const stream = (await exec.start({ hijack: true, stdin: true, Tty: true } as never)) as unknown as Duplex;
  await exec.resize({ h: 24, w: 80 }).catch(() => undefined);
  return pipeOver(
    (listener) => stream.on('data', listener),
    (data) => stream.write(data),
    () => {
      stream.end('exit\r');
      setTimeout(() => stream.destroy(), 500).unref();
    },
  );
}

/** Latency of `count` keystrokes: send one character, wait for its echo. */
async function keystrokes(pipe: Pipe, count: number): Promise<number[]> {
  const ready = pipe.waitFor(PROMPT);
  pipe.send('\r');
  await ready;
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    if (i > 0 && i % 40 === 0) {
      // Clear the line so it never wraps (a wrap redraws more than the one character).
      const cleared = pipe.waitFor(PROMPT);
      pipe.send('\x15\r');
      await cleared;
    }
    const key = KEYS[i % KEYS.length];
    const echoed = pipe.waitFor(key);
    const start = performance.now();
    pipe.send(key);
    await echoed;
    samples.push(performance.now() - start);
  }
  const cleared = pipe.waitFor(PROMPT);
  pipe.send('\x15\r');
  await cleared;
  return samples;
}

/** Time from Ctrl-C during `yes` to the next prompt. */
async function interrupts(pipe: Pipe, count: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const flooding = pipe.waitFor(/(y\r\n){2000}/);
    pipe.send('yes\r');
    await flooding;
    await new Promise((resolve) => setTimeout(resolve, 200));
    const prompt = pipe.waitFor(/\^C[\s\S]*# $/);
    const start = performance.now();
    pipe.send('\x03');
    await prompt;
    samples.push(performance.now() - start);
  }
  return samples;
}

export const ptyBench: BenchSection = {
  name: 'PTY terminal',
  async run({ shoal, runs }) {
    const sandbox = await runningSandbox(shoal, { timeout: 900 });
    const count = Math.max(200, runs * 10);
    const interruptRuns = Math.max(10, Math.ceil(runs / 2));
    try {
      const ours = await oursPipe(shoal, sandbox.id);
      const raw = await rawPipe(sandbox.container);
      // Warm both paths, then measure them alternately so neither gets a quieter machine.
      await keystrokes(ours, 20);
      await keystrokes(raw, 20);
      const oursKeys = await keystrokes(ours, count);
      const rawKeys = await keystrokes(raw, count);
      const oursInterrupts = await interrupts(ours, interruptRuns);
      const rawInterrupts = await interrupts(raw, interruptRuns);
      ours.close();
      raw.close();
      return [
        {
          figure: `keystroke echo p50 (${count} keys)`,
          unit: 'ms',
          ours: median(oursKeys),
          raw: median(rawKeys),
          target: '≤ raw + 2 ms',
        },
        {
          figure: `keystroke echo p99 (${count} keys)`,
          unit: 'ms',
          ours: percentile(oursKeys, 99),
          raw: percentile(rawKeys, 99),
          target: '≤ 10 ms',
        },
        {
          figure: `Ctrl-C during yes → prompt, median of ${interruptRuns}`,
          unit: 'ms',
          ours: median(oursInterrupts),
          raw: median(rawInterrupts),
          target: '≤ 200 ms',
        },
        {
          figure: `Ctrl-C during yes → prompt, worst of ${interruptRuns}`,
          unit: 'ms',
          ours: Math.max(...oursInterrupts),
          raw: Math.max(...rawInterrupts),
          target: '≤ 200 ms',
        },
      ];
    } finally {
      await shoal.request('DELETE', `/v1/sandbox/${sandbox.id}`);
    }
  },
};
