import { describe, expect, it } from 'vitest';
import { RingBuffer } from './ring-buffer';

function bytes(from: number, length: number): Buffer {
  return Buffer.from(Array.from({ length }, (_, i) => (from + i) % 251));
}

describe('RingBuffer', () => {
  it('addresses every byte by its stream offset', () => {
    const ring = new RingBuffer(64, 8);
    ring.append(Buffer.from('hello '));
    ring.append(Buffer.from('world'));
    expect(ring.start).toBe(0);
    expect(ring.end).toBe(11);
    expect(ring.read(0).data.toString()).toBe('hello world');
    expect(ring.read(6).data.toString()).toBe('world');
    expect(ring.read(6, 3)).toEqual({ offset: 6, data: Buffer.from('wor') });
    expect(ring.read(11).data.length).toBe(0);
  });

  it('keeps only the newest `capacity` bytes and moves start forward', () => {
    const ring = new RingBuffer(100, 16);
    let written = 0;
    for (const size of [30, 50, 45, 7, 99, 1, 13]) {
      ring.append(bytes(written, size));
      written += size;
      expect(ring.end).toBe(written);
      expect(ring.start).toBe(Math.max(0, written - 100));
      const { offset, data } = ring.read(0);
      expect(offset).toBe(ring.start);
      expect(data.equals(bytes(ring.start, written - ring.start))).toBe(true);
    }
  });

  it('takes an append bigger than the capacity by keeping its tail', () => {
    const ring = new RingBuffer(10, 4);
    ring.append(bytes(0, 3));
    ring.append(bytes(3, 25));
    expect(ring.end).toBe(28);
    expect(ring.start).toBe(18);
    expect(ring.read(0).data.equals(bytes(18, 10))).toBe(true);
  });

  it('clamps reads before the oldest byte and after the newest', () => {
    const ring = new RingBuffer(10);
    ring.append(bytes(0, 25));
    expect(ring.clamp(3)).toBe(15);
    expect(ring.clamp(40)).toBe(25);
    expect(ring.read(40)).toEqual({ offset: 25, data: Buffer.alloc(0) });
  });

  it('resumes at any offset across wrap-arounds with nothing lost or repeated', () => {
    const ring = new RingBuffer(256 * 1024);
    let written = 0;
    let cursor = 0;
    const received: Buffer[] = [];
    for (let i = 0; i < 200; i++) {
      const size = 1 + ((i * 7919) % 9000);
      ring.append(bytes(written, size));
      written += size;
      if (i % 3 === 0) {
        const { offset, data } = ring.read(cursor, 4096);
        expect(offset).toBe(cursor);
        received.push(data);
        cursor += data.length;
        // keep up so nothing is overwritten before it is read
        const rest = ring.read(cursor);
        received.push(rest.data);
        cursor += rest.data.length;
      }
    }
    const rest = ring.read(cursor);
    received.push(rest.data);
    expect(Buffer.concat(received).equals(bytes(0, written))).toBe(true);
  });

  it('copies out into a frame after a header byte', () => {
    const ring = new RingBuffer(8, 8);
    ring.append(Buffer.from('abcdefghij'));
    const frame = Buffer.alloc(5);
    frame[0] = 0;
    expect(ring.copyOut(4, frame, 1)).toBe(4);
    expect(frame.subarray(1).toString()).toBe('efgh');
  });
});
