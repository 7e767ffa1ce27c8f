import os from 'node:os';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../spec/sandbox';
import { browserSessionCookie } from '../../testing/browser-session';
import { rawExec, sandboxContainer } from '../../testing/raw-docker';
import { restoreRunning } from '../../testing/sandbox-fixture';
import { startShoal, type ShoalServer } from '../../testing/shoal-server';

/** Small enough to test `truncated` with the 10 000-file tree, larger than every other listing. */
const GLOB_CAP = 9000;
const allBytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

let shoal: ShoalServer;
let sandbox: Sandbox;
let container: Docker.Container;

/** Runs a command in the sandbox straight through Docker: an independent view of its files. */
async function inContainer(argv: string[], stdin?: Buffer): Promise<{ stdout: Buffer; stderr: string; code: number }> {
  const result = await rawExec(container, argv, stdin, ['LC_ALL=C']);
  return { stdout: result.stdout, stderr: result.stderr.toString(), code: result.exitCode };
}

async function sh(script: string): Promise<string> {
  const result = await inContainer(['sh', '-c', script]);
  if (result.code !== 0) throw new Error(`setup failed (${result.code}): ${result.stderr}`);
  return result.stdout.toString();
}

function route(name: string): string {
  return `/v1/sandbox/${sandbox.id}/filesystem/${name}`;
}

function api<T = Record<string, unknown>>(name: string, body: unknown) {
  return shoal.request<T>('POST', route(name), { body });
}

/** For binary and multipart answers, which `request` would decode as text. */
async function fetchRaw(name: string, init: { body?: BodyInit; query?: string; headers?: Record<string, string> }) {
  return fetch(`${shoal.url}${route(name)}${init.query ?? ''}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${shoal.apiKey}`, ...init.headers },
    body: init.body,
  });
}

async function readFiles(paths: string[]): Promise<{ status: number; form?: FormData; text?: string; type: string }> {
  const response = await fetchRaw('read-files', {
    body: JSON.stringify({ paths }),
    headers: { 'content-type': 'application/json' },
  });
  const type = response.headers.get('content-type') ?? '';
  if (response.status !== 200) return { status: response.status, text: await response.text(), type };
  return { status: 200, form: await response.formData(), type };
}

async function fileBytes(entry: FormDataEntryValue): Promise<Buffer> {
  return Buffer.from(await (entry as File).arrayBuffer());
}

beforeAll(async () => {
  shoal = await startShoal({ env: { SHOAL_GLOB_MAX_ITEMS: String(GLOB_CAP) } });
  sandbox = await restoreRunning(shoal);
  container = await sandboxContainer(sandbox.id);
});

afterAll(async () => {
  await shoal?.stop();
});

describe('mkdir', () => {
  it('creates a directory with the given permissions (default 755) and answers 204', async () => {
    expect((await api('mkdir', { path: '/workspace/mk-a' })).status).toBe(204);
    expect((await api('mkdir', { path: 'mk-b', permissions: '700' })).status).toBe(204);
    expect(await sh('stat -c %a /workspace/mk-a /workspace/mk-b')).toBe('755\n700\n');
  });

  it('answers 409 when it exists, 404 when the parent is missing, unless recursive', async () => {
    const exists = await api('mkdir', { path: '/workspace/mk-a' });
    expect(exists.status).toBe(409);
    expect(exists.body.message).toContain('/workspace/mk-a');
    const orphan = await api('mkdir', { path: '/workspace/mk-none/child' });
    expect(orphan.status).toBe(404);
    expect(orphan.body).toEqual({ message: "Directory '/workspace/mk-none' not found" });
    expect((await api('mkdir', { path: '/workspace/mk-none/child/deep', recursive: true })).status).toBe(204);
    expect((await api('mkdir', { path: '/workspace/mk-a', recursive: true })).status).toBe(204);
    expect(await sh('test -d /workspace/mk-none/child/deep && echo yes')).toBe('yes\n');
  });

  it('refuses a malformed mode with 400 naming the field', async () => {
    for (const permissions of ['999', '75', '0o755', 'rwx', '12345']) {
      const response = await api<{ errors: { field: string }[] }>('mkdir', { path: 'mk-bad', permissions });
      expect(response.status).toBe(400);
      expect(response.body.errors.map((e) => e.field)).toEqual(['permissions']);
    }
  });

  it('answers 403 where the sandbox may not write (sysfs is mounted read-only in every container)', async () => {
    const response = await api('mkdir', { path: '/sys/shoal-test' });
    expect(response.status).toBe(403);
    expect(response.body.message).toMatch(/Permission denied: '\/sys\/shoal-test' \(Read-only file system\)/);
  });
});

describe('write-file, read-file and read-files', () => {
  it('round-trips all 256 byte values: write-file, then read-files and read-file', async () => {
    const write = await fetchRaw('write-file', {
      query: '?path=/workspace/bin/all.bin',
      body: allBytes,
      headers: { 'content-type': 'application/octet-stream' },
    });
    expect(write.status).toBe(204);
    expect((await inContainer(['cat', '/workspace/bin/all.bin'])).stdout).toEqual(allBytes);

    const multi = await readFiles(['/workspace/bin/all.bin']);
    expect(multi.status).toBe(200);
    expect(await fileBytes(multi.form!.get('/workspace/bin/all.bin')!)).toEqual(allBytes);

    const single = await fetchRaw('read-file', {
      body: JSON.stringify({ path: 'bin/all.bin' }),
      headers: { 'content-type': 'application/json' },
    });
    expect(single.status).toBe(200);
    expect(single.headers.get('content-type')).toBe('application/octet-stream');
    expect(Buffer.from(await single.arrayBuffer())).toEqual(allBytes);
  });

  it('write-file creates parents, applies ?permissions, keeps an existing mode otherwise', async () => {
    const first = await fetchRaw('write-file', { query: '?path=deep/er/x.sh&permissions=750', body: 'echo 1\n' });
    expect(first.status).toBe(204);
    expect(await sh('stat -c %a /workspace/deep/er/x.sh')).toBe('750\n');
    expect((await fetchRaw('write-file', { query: '?path=deep/er/x.sh', body: 'echo 2\n' })).status).toBe(204);
    expect(await sh('stat -c %a /workspace/deep/er/x.sh; cat /workspace/deep/er/x.sh')).toBe('750\necho 2\n');
    const bad = await fetchRaw('write-file', { query: '?path=a&permissions=8', body: 'x' });
    expect(bad.status).toBe(400);
    expect((await fetchRaw('write-file', { query: '?path=/workspace/deep', body: 'x' })).status).toBe(400);
    expect((await fetchRaw('write-file', { query: '?path=/sys/x', body: 'x' })).status).toBe(403);
  });

  it('read-file returns byte ranges and head/tail lines', async () => {
    await sh('printf "l1\\nl2\\nl3\\nl4\\n" > /workspace/lines.txt');
    const read = async (body: object) => {
      const response = await fetchRaw('read-file', { body: JSON.stringify({ path: 'lines.txt', ...body }) });
      return [response.status, await response.text()];
    };
    expect(await read({ offset: 3, limit: 4 })).toEqual([200, 'l2\nl']);
    expect(await read({ head: 2 })).toEqual([200, 'l1\nl2\n']);
    expect(await read({ tail: 1 })).toEqual([200, 'l4\n']);
    expect((await read({ head: 1, tail: 1 }))[0]).toBe(400);
    expect(await read({ path: 'nope.txt' })).toEqual([404, JSON.stringify({ message: "File 'nope.txt' not found" })]);
    expect((await read({ path: '/workspace' }))[0]).toBe(400);
  });

  it('read-files answers multipart parts in request order, named as requested, with basenames', async () => {
    await sh(
      'mkdir -p /workspace/rf && cd /workspace/rf && printf one > 1.txt && printf two > 2.txt && printf "" > empty',
    );
    const paths = ['rf/2.txt', '/workspace/rf/1.txt', '/workspace/rf/empty', 'rf/./1.txt'];
    const result = await readFiles(paths);
    expect(result.status).toBe(200);
    expect(result.type).toMatch(/^multipart\/form-data; boundary=\S+$/);
    const entries = [...result.form!.entries()];
    expect(entries.map(([name]) => name)).toEqual(paths);
    expect(entries.map(([, file]) => (file as File).name)).toEqual(['2.txt', '1.txt', 'empty', '1.txt']);
    expect(entries.map(([, file]) => (file as File).type)).toEqual(Array(4).fill('application/octet-stream'));
    expect(await Promise.all(entries.map(async ([, file]) => (await fileBytes(file)).toString()))).toEqual([
      'two',
      'one',
      '',
      'one',
    ]);
  });

  it('escapes quotes and line breaks in part names so they survive a real multipart parser', async () => {
    const name = '/workspace/rf/we"ird\nname.txt';
    await inContainer(['sh', '-c', 'printf odd > "$1"', 'sh', name]);
    const result = await readFiles([name]);
    expect(result.status).toBe(200);
    const [[field, file]] = [...result.form!.entries()];
    expect(field).toBe(name);
    expect((file as File).name).toBe('we"ird\nname.txt');
    expect((await fileBytes(file)).toString()).toBe('odd');
  });

  it('answers 404 naming a missing path, 400 for a directory, 413 over 10 MiB', async () => {
    const missing = await readFiles(['rf/1.txt', 'rf/missing.txt']);
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.text!)).toEqual({ message: "File 'rf/missing.txt' not found" });
    const directory = await readFiles(['rf']);
    expect(directory.status).toBe(400);
    expect(JSON.parse(directory.text!).message).toBe("'rf' is a directory");
    await sh('head -c 6000000 /dev/zero > /workspace/rf/big1 && head -c 6000000 /dev/zero > /workspace/rf/big2');
    expect((await readFiles(['rf/big1'])).status).toBe(200);
    const tooBig = await readFiles(['rf/big1', 'rf/big2']);
    expect(tooBig.status).toBe(413);
    expect(JSON.parse(tooBig.text!).message).toMatch(/10 MiB/);
    const oneTooBig = await fetchRaw('read-file', { body: JSON.stringify({ path: '/dev/zero' }) });
    expect(oneTooBig.status).toBe(400); // not a regular file: never streamed
    await sh('head -c 11000000 /dev/zero > /workspace/rf/big3');
    expect((await fetchRaw('read-file', { body: JSON.stringify({ path: 'rf/big3' }) })).status).toBe(413);
    const part = await fetchRaw('read-file', { body: JSON.stringify({ path: 'rf/big3', offset: 10999990 }) });
    expect([part.status, (await part.arrayBuffer()).byteLength]).toEqual([200, 10]);
    const empty = await api<{ errors: { field: string }[] }>('read-files', { paths: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.errors[0].field).toBe('paths');
  });
  it('checks a single path as strictly as several: missing, FIFO, empty file, oversized upload', async () => {
    await sh('rm -f /workspace/rf/fifo && mkfifo /workspace/rf/fifo && : > /workspace/rf/empty-one');
    const missing = await readFiles(['rf/missing-one.txt']);
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.text!)).toEqual({ message: "File 'rf/missing-one.txt' not found" });
    const fifo = await readFiles(['rf/fifo']);
    expect(fifo.status).toBe(400);
    expect(JSON.parse(fifo.text!).message).toBe("'rf/fifo' is not a regular file");
    const fifoSingle = await fetchRaw('read-file', { body: JSON.stringify({ path: 'rf/fifo' }) });
    expect(fifoSingle.status).toBe(400);
    const empty = await readFiles(['rf/empty-one']);
    expect(empty.status).toBe(200);
    expect((await fileBytes(empty.form!.get('rf/empty-one')!)).length).toBe(0);
    const emptySingle = await fetchRaw('read-file', { body: JSON.stringify({ path: 'rf/empty-one' }) });
    expect([emptySingle.status, (await emptySingle.arrayBuffer()).byteLength]).toEqual([200, 0]);
    const upload = await fetchRaw('write-file', { query: '?path=rf/huge', body: Buffer.alloc(10 * 1024 * 1024 + 1) });
    expect(upload.status).toBe(413);
    expect((await api('exists', { path: 'rf/huge' })).body).toEqual({ exists: false });
  });
});

describe('paths resolve inside the sandbox', () => {
  it('follows a symlink to /etc/hostname to the sandbox’s own hostname, not the host’s', async () => {
    await sh('ln -sf /etc/hostname /workspace/host-link');
    const result = await readFiles(['host-link', '../etc/hostname', '/workspace/../etc/hostname']);
    expect(result.status).toBe(200);
    const texts = await Promise.all([...result.form!.values()].map(async (file) => (await fileBytes(file)).toString()));
    expect(texts).toEqual([`${sandbox.id}\n`, `${sandbox.id}\n`, `${sandbox.id}\n`]);
    expect(os.hostname()).not.toBe(sandbox.id);
    const single = await fetchRaw('read-file', { body: JSON.stringify({ path: 'host-link' }) });
    expect(await single.text()).toBe(`${sandbox.id}\n`);
  });

  it('writes through a symlinked directory inside the sandbox only', async () => {
    await sh('mkdir -p /tmp/target-dir && ln -sfn /tmp/target-dir /workspace/dir-link');
    const response = await fetchRaw('write-file', { query: '?path=dir-link/through.txt', body: 'via link' });
    expect(response.status).toBe(204);
    expect(await sh('cat /tmp/target-dir/through.txt')).toBe('via link');
  });

  it('treats shell syntax and leading dashes in paths as plain names', async () => {
    const names = ['-rf', '$(touch /tmp/pwned)', '; touch /tmp/pwned2', '`id`', '*'];
    for (const name of names) {
      expect((await api('mkdir', { path: `inj/${name}`, recursive: true })).status).toBe(204);
      const write = await fetchRaw('write-file', { query: `?path=${encodeURIComponent(`inj/${name}/f`)}`, body: name });
      expect(write.status).toBe(204);
    }
    const listed = await api<{ items: string[] }>('glob', { path: 'inj' });
    expect(listed.body.items).toEqual(names.map((name) => `/workspace/inj/${name}/f`).sort());
    const read = await readFiles(names.map((name) => `inj/${name}/f`));
    const texts = await Promise.all([...read.form!.values()].map(async (file) => (await fileBytes(file)).toString()));
    expect(texts).toEqual(names);
    expect((await inContainer(['sh', '-c', 'ls /tmp/pwned /tmp/pwned2'])).code).not.toBe(0);
  });
});

describe('edit-files', () => {
  it('replaces every occurrence in place, keeping an executable script’s mode 755, owner and inode', async () => {
    await sh(
      'printf "#!/bin/sh\\necho OLD; echo OLD\\n" > /workspace/run.sh && chmod 755 /workspace/run.sh && chown nobody:nogroup /workspace/run.sh',
    );
    const before = await sh('stat -c "%a %U %G %i" /workspace/run.sh');
    const response = await api('edit-files', { files: ['run.sh'], find: 'OLD', replace: 'NEW' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ items: [{ file: 'run.sh', success: true, replacements: 2 }] });
    expect(await sh('cat /workspace/run.sh')).toBe('#!/bin/sh\necho NEW; echo NEW\n');
    expect(await sh('stat -c "%a %U %G %i" /workspace/run.sh')).toBe(before);
    expect(before).toMatch(/^755 nobody nogroup /);
    expect(await sh('/workspace/run.sh')).toBe('NEW\nNEW\n');
  });

  it('reports per-file results in order; missing, directory and unwritable files never fail the request', async () => {
    // A running executable cannot be opened for writing (ETXTBSY), even by root: a real unwritable file.
    await sh(
      'printf "aXbXc" > /workspace/e1 && printf "none" > /workspace/e2 && printf "ÄXÄ" > /workspace/e3 && ' +
        'cp /bin/sleep /workspace/busy-bin && (/workspace/busy-bin 300 >/dev/null 2>&1 &) && sleep 0.2',
    );
    try {
      const response = await api<{ items: Record<string, unknown>[] }>('edit-files', {
        files: ['e1', 'missing-file', 'e2', '/workspace', 'e3', 'busy-bin'],
        find: 'X',
        replace: 'ü',
      });
      expect(response.status).toBe(200);
      expect(response.body.items).toEqual([
        { file: 'e1', success: true, replacements: 2 },
        { file: 'missing-file', success: false, error: "File 'missing-file' not found", replacements: 0 },
        { file: 'e2', success: true, replacements: 0 },
        { file: '/workspace', success: false, error: "'/workspace' is a directory", replacements: 0 },
        { file: 'e3', success: true, replacements: 1 },
        { file: 'busy-bin', success: false, error: "'busy-bin' is busy (Text file busy)", replacements: 0 },
      ]);
      expect((await inContainer(['cat', '/workspace/e1', '/workspace/e3'])).stdout.toString()).toBe('aübücÄüÄ');
      expect(await sh('cmp /bin/sleep /workspace/busy-bin && echo same')).toBe('same\n');
    } finally {
      await sh('pkill -x busy-bin || true');
    }
  });

  it('deletes matches when replace is omitted, and refuses an empty find', async () => {
    await sh('printf "keep-drop-keep" > /workspace/e4');
    const response = await api<{ items: { replacements: number }[] }>('edit-files', { files: ['e4'], find: '-drop' });
    expect(response.body.items[0].replacements).toBe(1);
    expect(await sh('cat /workspace/e4')).toBe('keep-keep');
    const empty = await api<{ errors: { field: string }[] }>('edit-files', { files: ['e4'], find: '' });
    expect(empty.status).toBe(400);
    expect(empty.body.errors.map((e) => e.field)).toEqual(['find']);
    expect((await api('edit-files', { files: [], find: 'x' })).status).toBe(400);
  });
});

describe('glob over 10 000 files', () => {
  beforeAll(async () => {
    // One exec creates the whole tree: 4000 + 4000 .txt files, 1000 .log files, 1000 in node_modules.
    await sh(
      [
        'mkdir -p /workspace/g/src/a/deep /workspace/g/src/b /workspace/g/node_modules/pkg /workspace/g/logs',
        'cd /workspace/g',
        'seq 1 4000 | sed "s|^|src/a/deep/f|; s|$|.txt|" | xargs touch',
        'seq 1 4000 | sed "s|^|src/b/f|; s|$|.txt|" | xargs touch',
        'seq 1 1000 | sed "s|^|logs/x|; s|$|.log|" | xargs touch',
        'seq 1 1000 | sed "s|^|node_modules/pkg/m|; s|$|.js|" | xargs touch',
        'ln -s src/b/f1.txt link-to-file.txt',
        `touch "${'a'.repeat(200)}"`,
      ].join(' && '),
    );
  });

  it('matches file names anywhere below the path, sorted, absolute', async () => {
    const response = await api<{ items: string[]; truncated?: boolean }>('glob', { path: 'g', pattern: '*.log' });
    expect(response.status).toBe(200);
    expect(response.body.items).toHaveLength(1000);
    expect(response.body.truncated).toBeUndefined();
    expect(response.body.items[0]).toBe('/workspace/g/logs/x1.log');
    expect(response.body.items).toEqual([...response.body.items].sort());
  });

  it('matches relative paths when the pattern has a slash, with ** spanning directories', async () => {
    const deep = await api<{ items: string[] }>('glob', { path: '/workspace/g', pattern: 'src/**/f1?.txt' });
    expect(deep.body.items).toEqual([
      ...Array.from({ length: 10 }, (_, i) => `/workspace/g/src/a/deep/f1${i}.txt`),
      ...Array.from({ length: 10 }, (_, i) => `/workspace/g/src/b/f1${i}.txt`),
    ]);
    const shallow = await api<{ items: string[] }>('glob', { path: 'g', pattern: 'src/*/f1.txt' });
    expect(shallow.body.items).toEqual(['/workspace/g/src/b/f1.txt']);
    const braces = await api<{ items: string[] }>('glob', { path: 'g', pattern: '**/f4000.{txt,log}' });
    expect(braces.body.items).toEqual(['/workspace/g/src/a/deep/f4000.txt', '/workspace/g/src/b/f4000.txt']);
  });

  it('prunes excluded directories and files, by name or relative path', async () => {
    const response = await api<{ items: string[] }>('glob', {
      path: 'g',
      exclude: ['node_modules', 'src/a', '*.log', 'a*a'],
    });
    expect(response.body.items).toHaveLength(4001);
    expect(response.body.items.filter((p) => p.includes('/src/b/'))).toHaveLength(4000);
    expect(response.body.items).toContain('/workspace/g/link-to-file.txt');
  });

  it('returns every file when the pattern is omitted, capped with truncated: true', async () => {
    const response = await api<{ items: string[]; truncated?: boolean }>('glob', { path: 'g' });
    expect(response.body.truncated).toBe(true);
    expect(response.body.items).toHaveLength(GLOB_CAP);
    expect(response.body.items).toEqual([...response.body.items].sort());
    const uncapped = await api<{ items: string[]; truncated?: boolean }>('glob', {
      path: 'g',
      exclude: ['node_modules', 'logs'],
    });
    expect(uncapped.body.items).toHaveLength(8002);
    expect(uncapped.body.truncated).toBeUndefined();
    // The capped answer is the sorted prefix: nothing sorting before its last item was left out.
    const kept = new Set(response.body.items);
    const last = response.body.items[GLOB_CAP - 1];
    expect(uncapped.body.items.filter((path) => path <= last).every((path) => kept.has(path))).toBe(true);
  });

  it('answers a pathological pattern correctly (the matcher does not backtrack)', async () => {
    const none = await api<{ items: string[] }>('glob', { path: 'g', pattern: 'a*a*a*a*a*a*a*a*a*a*a*a*b' });
    expect(none.status).toBe(200);
    expect(none.body.items).toEqual([]);
    const one = await api<{ items: string[] }>('glob', { path: 'g', pattern: 'a*a*a*a*a*a*a*a*a*a*a*a*a' });
    expect(one.body.items).toEqual([`/workspace/g/${'a'.repeat(200)}`]);
  });

  it('answers 404 when the path is missing or not a directory', async () => {
    for (const path of ['no-such-dir', 'g/link-to-file.txt']) {
      const response = await api('glob', { path, pattern: '*' });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ message: `Directory '${path}' not found` });
    }
  });
});

describe('ls, stat, exists and tree', () => {
  beforeAll(async () => {
    await sh(
      [
        'mkdir -p /workspace/t/sub/inner /workspace/t/node_modules/x',
        'printf 12345 > /workspace/t/five.txt && chmod 640 /workspace/t/five.txt',
        'touch -d @1700000000 /workspace/t/five.txt',
        'touch /workspace/t/sub/inner/leaf /workspace/t/node_modules/x/y',
        'ln -sfn sub /workspace/t/sub-link',
      ].join(' && '),
    );
  });

  it('ls lists one level with FileInfo fields, sorted', async () => {
    const response = await api<{ items: Record<string, unknown>[] }>('ls', { path: 't' });
    expect(response.status).toBe(200);
    expect(response.body.items.map((i) => i.name)).toEqual(['five.txt', 'node_modules', 'sub', 'sub-link']);
    expect(response.body.items[0]).toEqual({
      name: 'five.txt',
      path: '/workspace/t/five.txt',
      is_dir: false,
      size: 5,
      mode: '640',
      mtime: 1700000000,
      owner: 'root',
      group: 'root',
      is_symlink: false,
    });
    expect(response.body.items[3]).toMatchObject({ is_dir: true, is_symlink: true, link_target: 'sub' });
  });

  it('ls recursive honours exclude', async () => {
    const response = await api<{ items: { path: string }[] }>('ls', {
      path: '/workspace/t',
      recursive: true,
      exclude: ['node_modules'],
    });
    expect(response.body.items.map((i) => i.path)).toEqual([
      '/workspace/t/five.txt',
      '/workspace/t/sub',
      '/workspace/t/sub-link',
      '/workspace/t/sub/inner',
      '/workspace/t/sub/inner/leaf',
    ]);
    expect((await api('ls', { path: 't/missing' })).status).toBe(404);
  });

  it('stat describes a path; exists answers true or false', async () => {
    const info = await api('stat', { path: 't/sub-link' });
    expect(info.body).toMatchObject({
      name: 'sub-link',
      path: '/workspace/t/sub-link',
      is_symlink: true,
      is_dir: true,
    });
    const dir = await api('stat', { path: '/workspace/t/sub/' });
    expect(dir.body).toMatchObject({ name: 'sub', path: '/workspace/t/sub', is_dir: true, mode: '755' });
    const missing = await api('stat', { path: 't/nope' });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: "Path 't/nope' not found" });
    expect((await api('exists', { path: 't/five.txt' })).body).toEqual({ exists: true });
    expect((await api('exists', { path: 't/nope' })).body).toEqual({ exists: false });
    expect((await api('exists', { path: '-n' })).body).toEqual({ exists: false });
  });

  it('tree nests children, directories first, with max_depth and exclude', async () => {
    const full = await api<{ items: unknown[] }>('tree', { path: 't', exclude: ['node_modules'] });
    expect(full.body.items).toEqual(
      [
        {
          name: 'sub',
          type: 'directory',
          children: [{ name: 'inner', type: 'directory', children: [{ name: 'leaf', type: 'file' }] }],
        },
        { name: 'sub-link', type: 'directory' },
        { name: 'five.txt', type: 'file' },
      ].map((node) => (node.name === 'sub-link' ? { ...node, children: [] } : node)),
    );
    const shallow = await api<{ items: unknown[] }>('tree', { path: 't', max_depth: 1, exclude: ['node_modules'] });
    expect(shallow.body.items).toEqual([
      { name: 'sub', type: 'directory' },
      { name: 'sub-link', type: 'directory' },
      { name: 'five.txt', type: 'file' },
    ]);
    expect((await api('tree', { path: 't/five.txt' })).status).toBe(404);
  });
});

describe('write-files, delete, move, copy, set-permissions', () => {
  it('write-files writes every multipart part to the path in its field name', async () => {
    const form = new FormData();
    form.append('/workspace/wf/a.bin', new Blob([allBytes]), 'a.bin');
    form.append('wf/nested/b.txt', new Blob(['bee']), 'b.txt');
    const response = await fetchRaw('write-files', { body: form });
    expect(response.status).toBe(204);
    expect((await inContainer(['cat', '/workspace/wf/a.bin'])).stdout).toEqual(allBytes);
    expect(await sh('cat /workspace/wf/nested/b.txt')).toBe('bee');
    const notMultipart = await fetchRaw('write-files', { body: 'x', headers: { 'content-type': 'text/plain' } });
    expect(notMultipart.status).toBe(400);
    const readOnly = new FormData();
    readOnly.append('/sys/nope', new Blob(['x']), 'nope');
    expect((await fetchRaw('write-files', { body: readOnly })).status).toBe(403);
  });

  it('delete removes files and trees; 409 for a non-empty directory without recursive; 404 when missing', async () => {
    await sh(
      'mkdir -p /workspace/del/full/x /workspace/del/empty && touch /workspace/del/file /workspace/del/full/x/y',
    );
    expect((await api('delete', { path: 'del/file' })).status).toBe(204);
    expect((await api('delete', { path: 'del/empty' })).status).toBe(204);
    const full = await api('delete', { path: 'del/full' });
    expect(full.status).toBe(409);
    expect(full.body).toEqual({ message: "Directory 'del/full' is not empty" });
    expect((await api('delete', { path: 'del/full', recursive: true })).status).toBe(204);
    expect(await sh('ls -A /workspace/del')).toBe('');
    expect((await api('delete', { path: 'del/file' })).status).toBe(404);
    expect((await api('delete', { path: '/workspace/', recursive: true })).status).toBe(403);
    expect((await api('delete', { path: '/', recursive: true })).status).toBe(403);
  });

  it('move renames; 409 when the destination exists unless overwrite; 404 for a missing source', async () => {
    await sh('mkdir -p /workspace/mv && printf 1 > /workspace/mv/a && printf 2 > /workspace/mv/b');
    const conflict = await api('move', { src_path: 'mv/a', dst_path: 'mv/b' });
    expect(conflict.status).toBe(409);
    expect(await sh('cat /workspace/mv/b')).toBe('2');
    expect((await api('move', { src_path: 'mv/a', dst_path: 'mv/b', overwrite: true })).status).toBe(204);
    expect(await sh('cat /workspace/mv/b; ls /workspace/mv')).toBe('1b\n');
    expect((await api('move', { src_path: 'mv/a', dst_path: 'mv/c' })).status).toBe(404);
    const noParent = await api('move', { src_path: 'mv/b', dst_path: 'mv/none/b' });
    expect(noParent.status).toBe(404);
    expect(noParent.body).toEqual({ message: "Directory '/workspace/mv/none' not found" });
  });

  it('copy keeps the mode; 409 when the destination exists; directories need recursive', async () => {
    await sh(
      'mkdir -p /workspace/cp/dir/in && printf x > /workspace/cp/f && chmod 751 /workspace/cp/f && touch /workspace/cp/dir/in/z',
    );
    expect((await api('copy', { src_path: 'cp/f', dst_path: 'cp/g' })).status).toBe(204);
    expect(await sh('stat -c %a /workspace/cp/g; cat /workspace/cp/g')).toBe('751\nx');
    const exists = await api('copy', { src_path: 'cp/f', dst_path: 'cp/g' });
    expect(exists.status).toBe(409);
    expect(exists.body).toEqual({ message: "'cp/g' already exists" });
    expect((await api('copy', { src_path: 'cp/f', dst_path: 'cp/g', overwrite: true })).status).toBe(204);
    expect((await api('copy', { src_path: 'cp/dir', dst_path: 'cp/dir2' })).status).toBe(400);
    expect((await api('copy', { src_path: 'cp/dir', dst_path: 'cp/dir2', recursive: true })).status).toBe(204);
    expect(await sh('ls /workspace/cp/dir2/in')).toBe('z\n');
    expect((await api('copy', { src_path: 'cp/none', dst_path: 'cp/x' })).status).toBe(404);
  });

  it('set-permissions changes mode, owner and group; 400 for an unknown user; 404 when missing', async () => {
    await sh('touch /workspace/perm');
    expect(
      (await api('set-permissions', { path: 'perm', mode: '0640', owner: 'nobody', group: 'nogroup' })).status,
    ).toBe(204);
    expect(await sh('stat -c "%a %U %G" /workspace/perm')).toBe('640 nobody nogroup\n');
    expect((await api('set-permissions', { path: 'perm', group: 'root' })).status).toBe(204);
    expect(await sh('stat -c "%U %G" /workspace/perm')).toBe('nobody root\n');
    const unknown = await api('set-permissions', { path: 'perm', owner: 'no-such-user' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/Unknown user or group/);
    expect((await api('set-permissions', { path: 'perm' })).status).toBe(400);
    expect((await api('set-permissions', { path: 'perm', owner: '-R' })).status).toBe(400);
    expect((await api('set-permissions', { path: 'nope', mode: '644' })).status).toBe(404);
  });
});

describe('grep', () => {
  beforeAll(async () => {
    await sh(
      [
        'mkdir -p /workspace/gr/src /workspace/gr/node_modules',
        'printf "alpha\\nneedle one\\nbeta NEEDLE\\n" > /workspace/gr/src/a.ts',
        'printf "needle in js\\n" > /workspace/gr/src/b.js',
        'printf "needle hidden\\n" > /workspace/gr/node_modules/c.ts',
        'printf "needle\\0binary" > /workspace/gr/src/bin.dat',
        'printf "a.b needle\\naxb\\n" > /workspace/gr/src/re.txt',
      ].join(' && '),
    );
  });

  type Grep = { items: { path: string; line: number; content: string }[]; truncated?: boolean };

  it('finds a fixed string with path, line and content, skipping binaries and excluded trees', async () => {
    const response = await api<Grep>('grep', { path: 'gr', pattern: 'needle', exclude: ['node_modules'] });
    expect(response.status).toBe(200);
    const found = response.body.items.map((i) => `${i.path}:${i.line}:${i.content}`).sort();
    expect(found).toEqual([
      '/workspace/gr/src/a.ts:2:needle one',
      '/workspace/gr/src/b.js:1:needle in js',
      '/workspace/gr/src/re.txt:1:a.b needle',
    ]);
  });

  it('honours include, case_sensitive, regex and max_results', async () => {
    const include = await api<Grep>('grep', { path: 'gr', pattern: 'needle', include: '*.ts', case_sensitive: false });
    expect(include.body.items.map((i) => `${i.path}:${i.line}`).sort()).toEqual([
      '/workspace/gr/node_modules/c.ts:1',
      '/workspace/gr/src/a.ts:2',
      '/workspace/gr/src/a.ts:3',
    ]);
    const fixed = await api<Grep>('grep', { path: 'gr/src', pattern: 'a.b' });
    expect(fixed.body.items.map((i) => i.content)).toEqual(['a.b needle']);
    const regex = await api<Grep>('grep', { path: 'gr/src', pattern: '^a.b$', regex: true });
    expect(regex.body.items.map((i) => i.content)).toEqual(['axb']);
    const capped = await api<Grep>('grep', { path: 'gr', pattern: 'needle', max_results: 1 });
    expect(capped.body.items).toHaveLength(1);
    expect(capped.body.truncated).toBe(true);
  });

  it('answers 400 for an invalid regex and 404 for a missing directory', async () => {
    const invalid = await api('grep', { path: 'gr', pattern: 'a(b', regex: true });
    expect(invalid.status).toBe(400);
    expect(invalid.body.message).toMatch(/Invalid pattern/);
    expect((await api('grep', { path: 'gr-missing', pattern: 'x' })).status).toBe(404);
  });
});

describe('routing and contract', () => {
  it('answers 404 for an unknown sandbox and 401 without a key', async () => {
    const unknown = await shoal.request('POST', '/v1/sandbox/sbx-doesnotexist/filesystem/glob', {
      body: { path: '.' },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: "Sandbox 'sbx-doesnotexist' not found" });
    const anonymous = await shoal.request('POST', route('exists'), { body: { path: '.' }, auth: false });
    expect(anonymous.status).toBe(401);
  });

  it('lets a same-origin browser session upload raw and multipart bodies, and refuses other origins and types', async () => {
    const browser = { cookie: await browserSessionCookie(shoal), origin: shoal.url };
    const upload = (name: string, body: BodyInit, headers: Record<string, string>) =>
      fetch(`${shoal.url}${route(name)}?path=browser/raw.txt`, { method: 'POST', headers, body });

    const raw = await upload('write-file', 'from the IDE', {
      ...browser,
      'content-type': 'application/octet-stream',
    });
    expect(raw.status).toBe(204);
    expect(await sh('cat /workspace/browser/raw.txt')).toBe('from the IDE');
    const form = new FormData();
    form.append('browser/form.txt', new Blob(['multipart']), 'form.txt');
    expect((await upload('write-files', form, browser)).status).toBe(204);
    expect(await sh('cat /workspace/browser/form.txt')).toBe('multipart');

    const foreign = await upload('write-file', 'x', {
      ...browser,
      origin: 'https://evil.example',
      'content-type': 'application/octet-stream',
    });
    expect(foreign.status).toBe(403);
    const formType = await upload('write-file', 'x', { ...browser, 'content-type': 'text/plain' });
    expect(formType.status).toBe(403);
  });

  it('lists every filesystem route in the OpenAPI document', async () => {
    const document = await shoal.request<{ paths: Record<string, unknown> }>('GET', '/v1/openapi.json');
    const names = Object.keys(document.body.paths)
      .filter((path) => path.includes('/filesystem/'))
      .map((path) => path.split('/').pop())
      .sort();
    expect(names).toEqual(
      [
        'copy',
        'delete',
        'edit-files',
        'exists',
        'glob',
        'grep',
        'ls',
        'mkdir',
        'move',
        'read-file',
        'read-files',
        'set-permissions',
        'stat',
        'tree',
        'write-file',
        'write-files',
      ].sort(),
    );
  });
});
