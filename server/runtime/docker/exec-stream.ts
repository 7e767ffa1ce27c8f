import { Readable, Writable, type Duplex } from 'node:stream';

export interface DemuxedExec {
  stdin: Writable;
  stdout: Readable;
  stderr: Readable;
  /** Resolves once the engine has closed the connection (both outputs ended). */
  ended: Promise<void>;
}

/**
 * Streams a hijacked, non-TTY exec connection: Docker frames stdout and stderr (8-byte header:
 * stream type, three zero bytes, big-endian length; see demux.ts), the reverse direction is raw
 * stdin. Unlike dockerode's demuxStream this keeps back-pressure: when a reader stops reading,
 * the socket is paused instead of buffering without bound (an SFTP download can be large).
 * Ending `stdin` half-closes the socket, which Docker turns into EOF on the process's stdin.
 */
export function demuxExecStream(socket: Duplex): DemuxedExec {
  let pending: Buffer = Buffer.alloc(0);
  const resume = () => {
    if (socket.isPaused()) socket.resume();
  };
  const stdout = new Readable({ read: resume });
  const stderr = new Readable({ read: resume });

  socket.on('data', (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    let full = false;
    while (pending.length >= 8) {
      const length = pending.readUInt32BE(4);
      if (pending.length < 8 + length) break;
      const type = pending[0];
      // Copy: the payload is a view into a chunk the rest of the frames would keep alive.
      const payload = Buffer.from(pending.subarray(8, 8 + length));
      pending = pending.subarray(8 + length);
      if (payload.length === 0) continue;
      if (type === 2) full = !stderr.push(payload) || full;
      else if (type === 1) full = !stdout.push(payload) || full;
    }
    if (full) socket.pause();
  });

  const ended = new Promise<void>((resolve) => {
    let done = false;
    const finish = (error?: Error) => {
      if (done) return;
      done = true;
      if (error) {
        stdout.destroy(error);
        stderr.destroy(error);
      } else {
        stdout.push(null);
        stderr.push(null);
      }
      resolve();
    };
    socket.once('end', () => finish());
    socket.once('close', () => finish());
    socket.once('error', (error: Error) => finish(error));
  });

  const stdin = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (socket.destroyed || socket.writableEnded) return callback();
      socket.write(chunk, () => callback());
    },
    final(callback) {
      if (!socket.destroyed && !socket.writableEnded) socket.end();
      callback();
    },
  });

  return { stdin, stdout, stderr, ended };
}
