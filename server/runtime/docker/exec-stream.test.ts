import { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { demuxExecStream } from './exec-stream';

/** A stand-in for the engine's hijacked socket: we push what the engine sends, and record what is written. */
class FakeSocket extends Duplex {
  written: Buffer[] = [];
  writeEnded = false;
  override _read(): void {}
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.written.push(chunk);
    callback();
  }
  override _final(callback: () => void): void {
    this.writeEnded = true;
    callback();
  }
}

function frame(type: 1 | 2, text: string): Buffer {
  const payload = Buffer.from(text);
  const header = Buffer.alloc(8);
  header[0] = type;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
}

function collect(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
    stream.on('end', () => resolve(text));
  });
}

describe('demuxExecStream', () => {
  it('splits stdout and stderr, even when frames arrive cut into pieces', async () => {
    const socket = new FakeSocket();
    const exec = demuxExecStream(socket);
    const out = collect(exec.stdout);
    const err = collect(exec.stderr);
    const bytes = Buffer.concat([frame(1, 'hello '), frame(2, 'oops'), frame(1, 'world')]);
    for (let i = 0; i < bytes.length; i += 3) socket.push(bytes.subarray(i, i + 3));
    socket.push(null);
    await exec.ended;
    expect(await out).toBe('hello world');
    expect(await err).toBe('oops');
  });

  it('writes stdin raw and half-closes the socket when stdin ends', async () => {
    const socket = new FakeSocket();
    const exec = demuxExecStream(socket);
    exec.stdout.resume();
    exec.stderr.resume();
    await new Promise<void>((resolve) => exec.stdin.end(Buffer.from('input bytes'), () => resolve()));
    expect(Buffer.concat(socket.written).toString()).toBe('input bytes');
    expect(socket.writeEnded).toBe(true);
  });

  it('pauses the socket while a reader is not reading, and resumes when it reads', async () => {
    const socket = new FakeSocket();
    const exec = demuxExecStream(socket);
    exec.stderr.resume();
    const big = 'x'.repeat(64 * 1024);
    socket.push(frame(1, big));
    socket.push(frame(1, big));
    await new Promise((resolve) => setImmediate(resolve));
    expect(socket.isPaused()).toBe(true);
    const out = collect(exec.stdout);
    socket.push(null);
    expect((await out).length).toBe(2 * big.length);
  });
});
