/**
 * The recent output of a terminal, addressed by stream offset: byte k of everything ever
 * appended has offset k. Holds the last `capacity` bytes; the storage grows on demand, so an
 * idle session costs a few KiB rather than the whole capacity.
 */
export class RingBuffer {
  private storage: Buffer;
  private total = 0;
  private held = 0;

  constructor(
    readonly capacity: number,
    initialSize = 16 * 1024,
  ) {
    if (!Number.isInteger(capacity) || capacity <= 0) throw new RangeError('capacity must be a positive integer');
    this.storage = Buffer.alloc(Math.min(capacity, Math.max(1, initialSize)));
  }

  /** Offset of the oldest byte still held. */
  get start(): number {
    return this.total - this.held;
  }

  /** Offset one past the newest byte (the number of bytes ever appended). */
  get end(): number {
    return this.total;
  }

  append(data: Uint8Array): void {
    if (data.length === 0) return;
    const wanted = Math.min(this.capacity, this.held + data.length);
    if (wanted > this.storage.length) this.grow(wanted);
    let chunk = data;
    let offset = this.total;
    if (chunk.length > this.storage.length) {
      offset += chunk.length - this.storage.length;
      chunk = chunk.subarray(chunk.length - this.storage.length);
    }
    this.writeAt(offset, chunk);
    this.total += data.length;
    this.held = Math.min(this.storage.length, this.held + data.length);
  }

  /** Where a read starting at `from` really starts: clamped into [start, end]. */
  clamp(from: number): number {
    return Math.min(this.end, Math.max(this.start, from));
  }

  /** A copy of up to `maxBytes` bytes from offset `from` (clamped into what is held). */
  read(from: number, maxBytes = Number.POSITIVE_INFINITY): { offset: number; data: Buffer } {
    const offset = this.clamp(from);
    const length = Math.min(this.end - offset, maxBytes);
    const data = Buffer.allocUnsafe(Math.max(0, length));
    this.copyOut(offset, data, 0);
    return { offset, data };
  }

  /** Copies held bytes starting at `from` into `target` at `targetStart`, as many as fit. */
  copyOut(from: number, target: Buffer, targetStart: number): number {
    const offset = this.clamp(from);
    const length = Math.min(this.end - offset, target.length - targetStart);
    if (length <= 0) return 0;
    const size = this.storage.length;
    const position = offset % size;
    const first = Math.min(length, size - position);
    this.storage.copy(target, targetStart, position, position + first);
    if (first < length) this.storage.copy(target, targetStart + first, 0, length - first);
    return length;
  }

  private writeAt(offset: number, data: Uint8Array): void {
    const size = this.storage.length;
    const position = offset % size;
    const first = Math.min(data.length, size - position);
    this.storage.set(data.subarray(0, first), position);
    if (first < data.length) this.storage.set(data.subarray(first), 0);
  }

  /** Re-lays the held bytes into a bigger store so that offset k sits at k mod size. */
  private grow(needed: number): void {
    const size = Math.min(this.capacity, Math.max(needed, this.storage.length * 2));
    const kept = this.read(this.start).data;
    const start = this.start;
    this.storage = Buffer.alloc(size);
    this.writeAt(start, kept);
  }
}
