import { describe, expect, it } from 'vitest';
import { isBinary, languageFor } from '../editor/file-kind';
import { formatClock, formatDuration, formatMib } from './format';
import { basename, dirname, joinPath, relativeTo, validName } from './paths';

describe('paths', () => {
  it('splits, joins and relativises sandbox paths', () => {
    expect(basename('/workspace/a/b.txt')).toBe('b.txt');
    expect(dirname('/workspace/a/b.txt')).toBe('/workspace/a');
    expect(dirname('/workspace')).toBe('/');
    expect(joinPath('/workspace/', 'x/../y.txt')).toBe('/workspace/y.txt');
    expect(relativeTo('/workspace/repo', '/workspace/repo/src/a.ts')).toBe('src/a.ts');
    expect(relativeTo('/workspace/repo', '/workspace/repository/a.ts')).toBeNull();
  });

  it('refuses names a user cannot create', () => {
    expect(validName('  ')).toMatch(/name/);
    expect(validName('..')).toMatch(/reserved/);
    expect(validName('hello.txt')).toBeNull();
  });
});

describe('file kinds', () => {
  it('recognises binary data and keeps UTF-8 text as text', () => {
    expect(isBinary(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1]))).toBe(true);
    expect(isBinary(new TextEncoder().encode('héllo wörld\n'))).toBe(false);
    expect(isBinary(new Uint8Array([0xff, 0xfe, 0x41, 0x42, 0x43, 0x44]))).toBe(true);
  });

  it('picks the editor language from the extension or name', () => {
    expect(languageFor('/w/app.tsx')).toBe('typescript');
    expect(languageFor('/w/Dockerfile')).toBe('dockerfile');
    expect(languageFor('/w/notes')).toBe('plaintext');
    expect(languageFor('/w/script.PY')).toBe('python');
  });
});

describe('format', () => {
  it('formats durations, clocks and sizes', () => {
    expect(formatDuration(42)).toBe('42 s');
    expect(formatDuration(3 * 3600 + 5 * 60)).toBe('3 h 5 min');
    expect(formatClock(299)).toBe('4:59');
    expect(formatClock(3723)).toBe('1:02:03');
    expect(formatMib(1024)).toBe('1 GiB');
    expect(formatMib(512)).toBe('512 MiB');
  });
});
