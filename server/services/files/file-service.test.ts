import { describe, expect, it } from 'vitest';
import { hasCode } from '../../errors';
import type { ExecResult } from '../../runtime/types';
import { execResult, fakeExecRuntime, type ExecCall } from '../../testing/fake-runtime';
import { FileService, fileInfo, parseGrep, replaceAll, type FileServiceOptions } from './file-service';
import { commandError, errnoFromText, markers } from './fs-errors';
import { decodeMultipart } from './multipart';
import { baseName, displayPath, inSandbox } from './paths';
import * as scripts from './scripts';

/** A ustar stream with regular-file entries (enough for the service's reader). */
function tar(files: Buffer[]): Buffer {
  const blocks: Buffer[] = [];
  files.forEach((data, i) => {
    const header = Buffer.alloc(512);
    header.write(`f${i}`, 0);
    header.write('0000644\0', 100);
    header.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124);
    header.write('0', 156);
    header.write('ustar\0', 257);
    blocks.push(header, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  });
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

/** A runtime whose exec answers from a script of canned results and records every call. */
function fakeRuntime(answers: ((call: ExecCall) => Partial<ExecResult>)[]) {
  return fakeExecRuntime((call) => {
    const answer = answers.shift();
    if (!answer) throw new Error(`unexpected exec: ${call.argv.join(' ')}`);
    return answer(call);
  });
}

const options: FileServiceOptions = {
  readLimitBytes: 1000,
  maxItems: 100,
  grepDefaultResults: 10,
  grepMaxResults: 100,
  timeoutMs: 5000,
  listOutputBytes: 1 << 20,
};

const SCRIPTS = new Set<unknown>(Object.values(scripts).filter((value: unknown) => typeof value === 'string'));

describe('file service (fake runtime)', () => {
  it('reads N files with ONE exec of tar, no shell, and answers parts in request order', async () => {
    const { runtime, calls } = fakeRuntime([
      () => ({ stdout: tar([Buffer.from('A'), Buffer.from('B'), Buffer.from([0, 255])]) }),
    ]);
    const service = new FileService(runtime, options);
    const { body, contentType } = await service.readFiles('c1', ['a.txt', '/abs/b', 'dir/c d']);
    expect(calls).toHaveLength(1);
    expect(calls[0].argv).toEqual([
      'tar',
      '-c',
      '-h',
      '--hard-dereference',
      '--no-recursion',
      '-f',
      '-',
      '--',
      '/workspace/a.txt',
      '/abs/b',
      '/workspace/dir/c d',
    ]);
    expect(calls[0].options).toMatchObject({ cwd: '/workspace', env: { LC_ALL: 'C' } });
    const parts = decodeMultipart(body, contentType);
    expect(parts.map((p) => [p.name, p.filename, p.data])).toEqual([
      ['a.txt', 'a.txt', Buffer.from('A')],
      ['/abs/b', 'b', Buffer.from('B')],
      ['dir/c d', 'c d', Buffer.from([0, 255])],
    ]);
  });

  it('falls back to the checking script on failure and names the missing path', async () => {
    const { runtime, calls } = fakeRuntime([
      () => ({ exitCode: 2, stderr: Buffer.from('tar: /workspace/b: Cannot stat: No such file or directory\n') }),
      () => ({ stderr: Buffer.from('shoal:ENOENT:1\n') }),
    ]);
    const service = new FileService(runtime, options);
    const error = await service.readFiles('c1', ['a', 'b']).catch((e: unknown) => e);
    expect(hasCode(error, 'not_found')).toBe(true);
    expect((error as Error).message).toBe("File 'b' not found");
    expect(calls[1].argv.slice(0, 4)).toEqual(['sh', '-c', scripts.READ_FILES, 'sh']);
    expect(calls[1].argv.slice(4)).toEqual(['1', '1000', '/workspace/a', '/workspace/b']);
  });

  it('refuses more than the read limit with 413', async () => {
    const { runtime } = fakeRuntime([
      () => ({ stdout: tar([Buffer.alloc(600), Buffer.alloc(600)]) }),
      () => ({ stderr: Buffer.from('shoal:TOOBIG:1200\n') }),
    ]);
    const error = await new FileService(runtime, options).readFiles('c1', ['a', 'b']).catch((e: unknown) => e);
    expect(hasCode(error, 'payload_too_large')).toBe(true);
  });

  it('passes user values only as positional parameters of constant scripts', async () => {
    const nasty = '$(touch /tmp/x); `id` "\'\n-rf';
    const answers = Array.from({ length: 4 }, () => () => ({}));
    const { runtime, calls } = fakeRuntime(answers);
    const service = new FileService(runtime, options);
    await service.delete('c1', { path: nasty, recursive: true });
    await service.move('c1', { src_path: nasty, dst_path: `${nasty}2` });
    await service.copy('c1', { src_path: nasty, dst_path: `${nasty}3`, recursive: true });
    await service.setPermissions('c1', { path: nasty, mode: '644' });
    for (const call of calls) {
      expect(call.argv[0]).toBe('sh');
      expect(SCRIPTS.has(call.argv[2])).toBe(true);
      expect(call.argv[3]).toBe('sh');
      expect(call.argv[4]).toBe(`/workspace/${nasty}`);
    }
  });

  it('edits with one read and one write exec, writing replaced bytes in place', async () => {
    const { runtime, calls } = fakeRuntime([
      () => ({ stdout: tar([Buffer.from('x-OLD-OLD'), Buffer.from('nothing')]) }),
      () => ({ stderr: Buffer.from('shoal:OK:0\n') }),
    ]);
    const service = new FileService(runtime, options);
    const answer = await service.editFiles('c1', { files: ['a', 'b'], find: 'OLD', replace: 'NEWER' });
    expect(answer.items).toEqual([
      { file: 'a', success: true, replacements: 2 },
      { file: 'b', success: true, replacements: 0 },
    ]);
    expect(calls).toHaveLength(2);
    expect(calls[1].argv.slice(2, 5)).toEqual([scripts.WRITE_FILES, 'sh', 'existing']);
    expect(calls[1].argv.slice(5)).toEqual(['/workspace/a', '13', '-']);
    expect(calls[1].options.stdin?.toString()).toBe('x-NEWER-NEWER');
  });

  it('reports a write failure as an item, never as a failed request', async () => {
    const { runtime } = fakeRuntime([
      () => ({ stdout: tar([Buffer.from('X'), Buffer.from('X')]) }),
      () => ({
        stderr: Buffer.from("shoal:ERR:0:dd: failed to open '/workspace/a': Text file busy\nshoal:OK:1\n"),
      }),
    ]);
    const answer = await new FileService(runtime, options).editFiles('c1', { files: ['a', 'b'], find: 'X' });
    expect(answer.items).toEqual([
      { file: 'a', success: false, error: "'a' is busy (Text file busy)", replacements: 0 },
      { file: 'b', success: true, replacements: 1 },
    ]);
  });

  it('caps glob at maxItems with truncated, after sorting', async () => {
    const names = Array.from({ length: 150 }, (_, i) => `f${String(149 - i).padStart(3, '0')}`);
    const { runtime, calls } = fakeRuntime([() => ({ stdout: Buffer.from(names.map((n) => `${n}\0`).join('')) })]);
    const answer = await new FileService(runtime, options).glob('c1', { path: '/data', exclude: ['.git'] });
    expect(answer.truncated).toBe(true);
    expect(answer.items).toHaveLength(100);
    expect(answer.items[0]).toBe('/data/f000');
    expect(calls[0].argv.slice(4)).toEqual([
      '/data',
      '-H',
      '/data',
      '-mindepth',
      '1',
      '(',
      '-name',
      '.git',
      ')',
      '-prune',
      '-o',
      '(',
      '-type',
      'f',
      '-o',
      '-xtype',
      'f',
      ')',
      '-printf',
      '%P\\0',
    ]);
  });
});

describe('errors from commands', () => {
  it('maps strerror texts and script markers to domain errors', () => {
    const fail = (stderr: string, exitCode = 1) =>
      commandError(execResult({ stderr: Buffer.from(stderr), exitCode }), 'op', { path: 'p' });
    expect(hasCode(fail("mkdir: cannot create directory '/x': File exists"), 'conflict')).toBe(true);
    expect(hasCode(fail("rmdir: failed to remove 'x': Directory not empty"), 'conflict')).toBe(true);
    expect(hasCode(fail('mkdir: cannot create directory: No such file or directory'), 'not_found')).toBe(true);
    expect(hasCode(fail('touch: cannot touch: Read-only file system'), 'permission_denied')).toBe(true);
    expect(hasCode(fail('shoal:EISDIR:0'), 'bad_request')).toBe(true);
    expect(hasCode(fail('dd: No space left on device'), 'payload_too_large')).toBe(true);
    expect(hasCode(fail("chown: invalid user: 'x'"), 'bad_request')).toBe(true);
    // A tool missing from the image is our problem, not the caller's: a plain error (500).
    expect(hasCode(fail('sh: 1: tar: not found', 127), 'bad_request')).toBe(false);
    expect(
      hasCode(commandError(execResult({ timedOut: true, exitCode: 124 }), 'glob', { path: 'p' }), 'bad_request'),
    ).toBe(true);
  });

  it('parses markers with their index and detail', () => {
    expect(markers('noise\nshoal:OK:0\nshoal:ERR:12:dd: failed\n')).toEqual([
      { status: 'OK', index: 0, detail: '' },
      { status: 'ERR', index: 12, detail: 'dd: failed' },
    ]);
    expect(errnoFromText('whatever: Not a directory')).toBe('ENOTDIR');
  });
});

describe('small parsers', () => {
  it('replaces every occurrence byte-exactly, without overlaps', () => {
    expect(replaceAll(Buffer.from('aaaa'), Buffer.from('aa'), Buffer.from('b'))).toEqual({
      data: Buffer.from('bb'),
      count: 2,
    });
    const binary = Buffer.from([0, 1, 0xff, 1, 0xff]);
    expect(replaceAll(binary, Buffer.from([1, 0xff]), Buffer.alloc(0)).data).toEqual(Buffer.from([0]));
    expect(replaceAll(Buffer.from('abc'), Buffer.from('x'), Buffer.from('y')).count).toBe(0);
  });

  it('reads find -printf records into FileInfo', () => {
    expect(fileInfo(['x', 'l', 'd', '3', '777', '1700000000.75', 'root', 'staff', 'sub'], '/w/x')).toEqual({
      name: 'x',
      path: '/w/x',
      is_dir: true,
      size: 3,
      mode: '777',
      mtime: 1700000000,
      owner: 'root',
      group: 'staff',
      is_symlink: true,
      link_target: 'sub',
    });
    expect(fileInfo(['f', 'f', 'f', '0', '0', '1', 'a', 'b', ''], '/f').mode).toBe('000');
  });

  it('reads grep -Z -n output, paths with newlines included, dropping a cut record', () => {
    const output = Buffer.from('/a/x\u00003:hello: world\n/a/new\nline\u000012:x\n/a/cut\u00004:partial');
    expect(parseGrep(output, true)).toEqual([
      { path: '/a/x', line: 3, content: 'hello: world' },
      { path: '/a/new\nline', line: 12, content: 'x' },
    ]);
  });

  it('resolves relative paths against the work dir without normalising them', () => {
    expect(inSandbox('a/../b')).toBe('/workspace/a/../b');
    expect(inSandbox('-rf')).toBe('/workspace/-rf');
    expect(inSandbox('/etc/x')).toBe('/etc/x');
    expect(displayPath('a/./b/')).toBe('/workspace/a/b');
    expect(displayPath('/')).toBe('/');
    expect(baseName('/a/b/')).toBe('b');
    expect(baseName('/')).toBe('/');
  });
});
