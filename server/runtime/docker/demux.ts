/**
 * Splits Docker's multiplexed exec stream (non-TTY) into stdout and stderr. Each frame is an
 * 8-byte header — stream type (1 stdout, 2 stderr), three zero bytes, big-endian length — then
 * the payload. Frames can arrive split across chunks, so partial input is kept until complete.
 */
export class DockerStreamDemuxer {
  private pending: Buffer = Buffer.alloc(0);
  private readonly stdout: Buffer[] = [];
  private readonly stderr: Buffer[] = [];
  private total = 0;
  truncated = false;

  constructor(private readonly maxBytes = Number.POSITIVE_INFINITY) {}

  push(chunk: Buffer): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    while (this.pending.length >= 8) {
      const length = this.pending.readUInt32BE(4);
      if (this.pending.length < 8 + length) break;
      const type = this.pending[0];
      const payload = this.pending.subarray(8, 8 + length);
      this.pending = this.pending.subarray(8 + length);
      this.keep(type === 2 ? this.stderr : this.stdout, payload);
    }
  }

  private keep(target: Buffer[], payload: Buffer): void {
    const room = this.maxBytes - this.total;
    if (room <= 0) {
      this.truncated = this.truncated || payload.length > 0;
      return;
    }
    const kept = payload.length > room ? payload.subarray(0, room) : payload;
    if (kept.length < payload.length) this.truncated = true;
    // Copy: the payload is a view into a buffer that later chunks would otherwise keep alive.
    target.push(Buffer.from(kept));
    this.total += kept.length;
  }

  result(): { stdout: Buffer; stderr: Buffer } {
    return { stdout: Buffer.concat(this.stdout), stderr: Buffer.concat(this.stderr) };
  }
}
