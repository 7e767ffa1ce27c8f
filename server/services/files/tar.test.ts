import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTar } from './tar';

/** GNU tar is how the sandbox writes these streams; the host's copy makes real fixtures. */
function gnuTar(dir: string, names: string[]): Buffer {
  try {
    return execFileSync('tar', ['-c', '-h', '--hard-dereference', '--no-recursion', '-f', '-', '--', ...names], {
      cwd: dir,
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    throw new Error(`GNU tar is needed for this test (apt-get install -y tar): ${String(error)}`);
  }
}

describe('tar reader', () => {
  it('reads GNU tar entries in order with exact bytes, long names and hard links', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-tar-'));
    try {
      const allBytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
      const longName = `${'d'.repeat(120)}/${'f'.repeat(150)}.txt`;
      fs.mkdirSync(path.join(dir, 'd'.repeat(120)));
      fs.writeFileSync(path.join(dir, longName), 'long');
      fs.writeFileSync(path.join(dir, 'bin'), allBytes);
      fs.writeFileSync(path.join(dir, 'empty'), '');
      fs.writeFileSync(path.join(dir, 'block'), Buffer.alloc(512, 7));
      fs.linkSync(path.join(dir, 'bin'), path.join(dir, 'hard'));
      const entries = parseTar(gnuTar(dir, ['bin', longName, 'empty', 'block', 'hard', 'bin']));
      expect(entries.map((e) => e.name)).toEqual(['bin', longName, 'empty', 'block', 'hard', 'bin']);
      expect(entries.map((e) => e.type)).toEqual(['0', '0', '0', '0', '0', '0']);
      expect(entries[0].data).toEqual(allBytes);
      expect(entries[1].data.toString()).toBe('long');
      expect(entries[2].size).toBe(0);
      expect(entries[3].data).toEqual(Buffer.alloc(512, 7));
      expect(entries[4].data).toEqual(allBytes);
      expect(entries[5].data).toEqual(allBytes);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('throws on a stream cut inside an entry', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shoal-tar-'));
    try {
      fs.writeFileSync(path.join(dir, 'big'), Buffer.alloc(4096, 1));
      const stream = gnuTar(dir, ['big']);
      expect(() => parseTar(stream.subarray(0, 1024))).toThrow(/truncated/);
      expect(parseTar(Buffer.alloc(0))).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
