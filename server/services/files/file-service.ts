import { BadRequest, PayloadTooLarge } from '../../errors';
import { log } from '../../log';
import type { ExecResult, SandboxRuntime } from '../../runtime/types';
import type {
  CopyBody,
  DeleteBody,
  EditFilesBody,
  EditFilesResult,
  FileInfo,
  GlobBody,
  GlobResult,
  GrepBody,
  GrepResult,
  LsBody,
  MkdirBody,
  MoveBody,
  ReadFileBody,
  SetPermissionsBody,
  TreeBody,
  TreeNode,
  TreeResult,
} from '../../spec/filesystem';
import {
  commandError,
  describeFailure,
  errnoFromText,
  fileError,
  markers,
  type Errno,
  type Subject,
} from './fs-errors';
import { ExcludeSet, Glob } from './glob-matcher';
import { decodeMultipart, encodeMultipart } from './multipart';
import { baseName, childPath, displayPath, inSandbox, parentDisplay, WORK_DIR } from './paths';
import {
  COPY,
  DELETE,
  GREP,
  LIST_DIRECTORY,
  MOVE,
  READ_FILE,
  READ_FILES,
  SET_PERMISSIONS,
  shellArgv,
  WRITE_FILES,
} from './scripts';
import { parseTar } from './tar';

const MiB = 1024 * 1024;

export interface FileServiceOptions {
  /** Total bytes one read (read-files, read-file, edit-files) may return. */
  readLimitBytes: number;
  /** Items glob, ls and tree return at most before answering `truncated: true`. */
  maxItems: number;
  /** Matches grep returns by default, and at most. */
  grepDefaultResults: number;
  grepMaxResults: number;
  /** Time limit of one command inside the sandbox. */
  timeoutMs: number;
  /** Output a listing command may write before it is cut (then the answer is truncated). */
  listOutputBytes: number;
}

export function fileServiceOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): FileServiceOptions {
  const positive = (name: string, fallback: number) => {
    const value = Number(env[name]);
    return Number.isInteger(value) && value > 0 ? value : fallback;
  };
  return {
    readLimitBytes: 10 * MiB,
    maxItems: positive('SHOAL_GLOB_MAX_ITEMS', 100_000),
    grepDefaultResults: 1000,
    grepMaxResults: 10_000,
    timeoutMs: positive('SHOAL_FILES_TIMEOUT_MS', 60_000),
    listOutputBytes: 64 * MiB,
  };
}

/** Arguments passed to one exec (paths): well under the kernel's 2 MiB argv limit. */
const MAX_ARGV_BYTES = 1 * MiB;
const GREP_CONTENT_CHARS = 1000;

/** Fields of find's -printf for FileInfo: relative path, type, target type, size, mode, mtime, owner, group, link. */
const INFO_FORMAT = '%P\\0%y\\0%Y\\0%s\\0%m\\0%T@\\0%u\\0%g\\0%l\\0';
const INFO_FIELDS = 9;

export interface FileUpload {
  path: string;
  data: Buffer;
  /** Octal mode to set; absent keeps an existing file's mode (new files get 644). */
  mode?: string;
}

/**
 * Filesystem operations on a sandbox. Everything runs inside the container through the
 * runtime's exec with argv arrays; the host never opens a container path, so symlinks and `..`
 * resolve in the sandbox's own namespace. Work on many paths is batched into one exec.
 * Callers first obtain the running container with `sandboxService().ready()`.
 */
export class FileService {
  constructor(
    private readonly runtime: SandboxRuntime,
    private readonly options: FileServiceOptions = fileServiceOptionsFromEnv(),
  ) {}

  /**
   * One command in the sandbox, in the C locale (so messages carry the errno text). It runs under
   * the runtime's in-container time limit, except `finite` commands: those end on their own (tar
   * of named files: it reads each regular file up to the size it stated, never a FIFO or a
   * device), so they skip the extra `timeout` process, a few milliseconds on every read; a
   * host-side deadline still bounds the request.
   */
  private async exec(
    containerId: string,
    argv: string[],
    options: { stdin?: Buffer; maxOutputBytes?: number; finite?: boolean } = {},
  ): Promise<ExecResult> {
    const run = this.runtime.exec(containerId, argv, {
      stdin: options.stdin,
      cwd: WORK_DIR,
      env: { LC_ALL: 'C' },
      timeoutMs: options.finite ? undefined : this.options.timeoutMs,
      maxOutputBytes: options.maxOutputBytes ?? MiB,
    });
    if (!options.finite) return run;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<ExecResult>((resolve) => {
      timer = setTimeout(
        () =>
          resolve({
            stdout: Buffer.alloc(0),
            stderr: Buffer.alloc(0),
            exitCode: 124,
            timedOut: true,
            truncated: false,
          }),
        this.options.timeoutMs,
      );
    });
    try {
      return await Promise.race([run, deadline]);
    } finally {
      clearTimeout(timer);
      run.catch(() => undefined); // settles later when the deadline won
    }
  }

  /** Runs a command whose only output that matters is success; throws the mapped error otherwise. */
  private async check(
    containerId: string,
    argv: string[],
    operation: string,
    fallback: Subject,
    subjects?: Subject[],
  ): Promise<void> {
    const result = await this.exec(containerId, argv);
    if (result.exitCode !== 0 || markers(result.stderr.toString('utf8')).length > 0 || result.timedOut) {
      throw commandError(result, operation, fallback, subjects);
    }
  }

  // ---- spec routes ----------------------------------------------------------------------

  async mkdir(containerId: string, body: MkdirBody): Promise<void> {
    const path = inSandbox(body.path);
    const argv = ['mkdir', ...(body.recursive ? ['-p'] : []), '-m', body.permissions ?? '755', '--', path];
    const result = await this.exec(containerId, argv);
    if (result.exitCode === 0) return;
    const errno = errnoFromText(result.stderr.toString('utf8'));
    if (errno === 'ENOENT' || errno === 'ENOTDIR') {
      throw fileError(errno, { path: parentDisplay(body.path), kind: 'Directory' });
    }
    throw commandError(result, 'mkdir', { path: body.path, kind: 'Directory' });
  }

  async glob(containerId: string, body: GlobBody): Promise<GlobResult> {
    const pattern = body.pattern ? new Glob(body.pattern) : null;
    const exclude = new ExcludeSet(body.exclude ?? []);
    const listing = await this.list(containerId, body.path, exclude, {
      format: '%P\\0',
      fields: 1,
      filesOnly: true,
    });
    const root = displayPath(body.path);
    const items: string[] = [];
    for (const [relative] of listing.records) {
      if (exclude.excludes(relative, false)) continue;
      if (pattern && !pattern.matchesEntry(relative, false)) continue;
      items.push(childPath(root, relative));
    }
    items.sort();
    return this.capped(items, listing.truncated, (kept, truncated) => ({
      items: kept,
      ...(truncated ? { truncated: true } : {}),
    }));
  }

  /** One multipart/form-data body with a part per path, in request order. */
  async readFiles(containerId: string, paths: string[]): Promise<{ body: Buffer; contentType: string }> {
    const files = await this.readMany(containerId, paths, true);
    const parts = paths.map((path, i) => ({
      name: path,
      filename: baseName(path),
      contentType: 'application/octet-stream',
      data: files[i] as Buffer,
    }));
    return encodeMultipart(parts);
  }

  async editFiles(containerId: string, body: EditFilesBody): Promise<EditFilesResult> {
    const find = Buffer.from(body.find, 'utf8');
    const replace = Buffer.from(body.replace ?? '', 'utf8');
    const contents = await this.readMany(containerId, body.files, false);
    const items: EditFilesResult['items'] = body.files.map((file, i) => {
      const content = contents[i];
      if (!Buffer.isBuffer(content)) return { file, success: false, error: content.error, replacements: 0 };
      return { file, success: true, replacements: 0 };
    });
    const writes: { index: number; data: Buffer }[] = [];
    contents.forEach((content, index) => {
      if (!Buffer.isBuffer(content)) return;
      const replaced = replaceAll(content, find, replace);
      items[index].replacements = replaced.count;
      if (replaced.count > 0) writes.push({ index, data: replaced.data });
    });
    if (writes.length === 0) return { items };
    const outcome = await this.writeMany(
      containerId,
      writes.map(({ index, data }) => ({ path: body.files[index], data })),
      'existing',
    );
    writes.forEach(({ index }, i) => {
      const failure = outcome[i];
      if (failure === null) return;
      const file = body.files[index];
      const error = failure.detail
        ? describeFailure(failure.errno, file, failure.detail)
        : `'${file}' was not written: an earlier write in the same request failed`;
      items[index] = { file, success: false, error, replacements: 0 };
    });
    return { items };
  }

  // ---- extensions -----------------------------------------------------------------------

  async ls(containerId: string, body: LsBody): Promise<{ items: FileInfo[]; truncated?: boolean }> {
    const exclude = new ExcludeSet(body.exclude ?? []);
    const listing = await this.list(containerId, body.path, exclude, {
      format: INFO_FORMAT,
      fields: INFO_FIELDS,
      maxDepth: body.recursive ? undefined : 1,
    });
    const root = displayPath(body.path);
    const items: FileInfo[] = [];
    for (const record of listing.records) {
      const info = fileInfo(record, childPath(root, record[0]));
      if (exclude.excludes(record[0], info.is_dir)) continue;
      items.push(info);
    }
    items.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return this.capped(items, listing.truncated, (kept, truncated) => ({
      items: kept,
      ...(truncated ? { truncated: true } : {}),
    }));
  }

  async stat(containerId: string, path: string): Promise<FileInfo> {
    const argv = ['find', '-P', inSandbox(path), '-maxdepth', '0', '-printf', INFO_FORMAT];
    const result = await this.exec(containerId, argv);
    const fields = result.stdout.toString('utf8').split('\0');
    if (result.exitCode !== 0 || fields.length < INFO_FIELDS) {
      throw commandError(result, 'stat', { path, kind: 'Path' });
    }
    return fileInfo(fields.slice(0, INFO_FIELDS), displayPath(path));
  }

  async exists(containerId: string, path: string): Promise<{ exists: boolean }> {
    // `test -e X` with exactly two arguments tests X whatever it looks like.
    const result = await this.exec(containerId, ['test', '-e', inSandbox(path)]);
    if (result.exitCode > 1) throw commandError(result, 'exists', { path, kind: 'Path' });
    return { exists: result.exitCode === 0 };
  }

  async tree(containerId: string, body: TreeBody): Promise<TreeResult> {
    const exclude = new ExcludeSet(body.exclude ?? []);
    const listing = await this.list(containerId, body.path, exclude, {
      format: '%Y\\0%P\\0',
      fields: 2,
      maxDepth: body.max_depth ?? undefined,
    });
    const roots: TreeNode[] = [];
    const directories = new Map<string, TreeNode>();
    let count = 0;
    let truncated = listing.truncated;
    for (const [type, relative] of listing.records) {
      const isDirectory = type === 'd';
      if (exclude.excludes(relative, isDirectory)) continue;
      if (count >= this.options.maxItems) {
        truncated = true;
        break;
      }
      const slash = relative.lastIndexOf('/');
      const parent = slash < 0 ? null : directories.get(relative.slice(0, slash));
      if (slash >= 0 && !parent) continue; // below an excluded directory
      const node: TreeNode = { name: relative.slice(slash + 1), type: isDirectory ? 'directory' : 'file' };
      const depth = relative.split('/').length;
      if (isDirectory && (body.max_depth == null || depth < body.max_depth)) {
        node.children = [];
        directories.set(relative, node);
      }
      (parent ? parent.children! : roots).push(node);
      count++;
    }
    sortTree(roots);
    return { items: roots, ...(truncated ? { truncated: true } : {}) };
  }

  async readFile(containerId: string, body: ReadFileBody): Promise<Buffer> {
    const limit = this.options.readLimitBytes;
    const cap = limit + 1;
    if (body.head == null && body.tail == null) {
      const count = Math.min(body.limit ?? cap, cap);
      const data = count > 0 ? await this.readBytes(containerId, inSandbox(body.path), body.offset ?? 0, count) : null;
      // Empty or over the limit: the script below tells an empty range from a FIFO or a device.
      if (data && data.length > 0 && data.length <= limit) return data;
    }
    let argv: string[];
    if (body.head != null) argv = [inSandbox(body.path), 'head', String(body.head), '', String(cap)];
    else if (body.tail != null) argv = [inSandbox(body.path), 'tail', String(body.tail), '', String(cap)];
    else {
      const count = Math.min(body.limit ?? cap, cap);
      argv = [inSandbox(body.path), 'bytes', String((body.offset ?? 0) + 1), String(count), String(cap)];
    }
    const result = await this.exec(containerId, shellArgv(READ_FILE, argv), { maxOutputBytes: cap + 4096 });
    const stderr = result.stderr.toString('utf8');
    if (markers(stderr).length > 0 || result.timedOut || (result.stdout.length === 0 && errnoFromText(stderr))) {
      throw commandError(result, 'read-file', { path: body.path });
    }
    if (result.stdout.length > limit) {
      throw new PayloadTooLarge(`'${body.path}' is larger than ${limit / MiB} MiB; read it in parts (offset, limit)`);
    }
    return result.stdout;
  }

  async writeFile(containerId: string, upload: FileUpload): Promise<void> {
    await this.writeAll(containerId, [upload]);
  }

  /** Writes every part of a multipart body: field name = path. */
  async writeMultipart(containerId: string, body: Buffer, contentType: string | null): Promise<void> {
    const parts = decodeMultipart(body, contentType);
    if (parts.length === 0) throw new BadRequest('The multipart body has no file parts');
    await this.writeAll(
      containerId,
      parts.map((part) => ({ path: part.name, data: part.data })),
    );
  }

  async delete(containerId: string, body: DeleteBody): Promise<void> {
    const shown = displayPath(body.path);
    if (shown === '/' || shown === WORK_DIR) {
      throw fileError('EPERM', { path: shown });
    }
    await this.check(containerId, shellArgv(DELETE, [inSandbox(body.path), body.recursive ? '1' : '0']), 'delete', {
      path: body.path,
      kind: 'Path',
    });
  }

  async move(containerId: string, body: MoveBody): Promise<void> {
    await this.check(
      containerId,
      shellArgv(MOVE, [inSandbox(body.src_path), inSandbox(body.dst_path), body.overwrite ? '1' : '0']),
      'move',
      { path: parentDisplay(body.dst_path), kind: 'Directory' },
      [{ path: body.src_path, kind: 'Path' }, { path: body.dst_path }],
    );
  }

  async copy(containerId: string, body: CopyBody): Promise<void> {
    await this.check(
      containerId,
      shellArgv(COPY, [
        inSandbox(body.src_path),
        inSandbox(body.dst_path),
        body.recursive ? '1' : '0',
        body.overwrite ? '1' : '0',
      ]),
      'copy',
      { path: parentDisplay(body.dst_path), kind: 'Directory' },
      [{ path: body.src_path, kind: 'Path' }, { path: body.dst_path }],
    );
  }

  async setPermissions(containerId: string, body: SetPermissionsBody): Promise<void> {
    const group = body.group != null ? `:${body.group}` : '';
    const spec = body.owner != null ? `${body.owner}${group}` : group;
    await this.check(
      containerId,
      shellArgv(SET_PERMISSIONS, [inSandbox(body.path), body.mode ?? '', spec]),
      'set-permissions',
      { path: body.path, kind: 'Path' },
    );
  }

  async grep(containerId: string, body: GrepBody): Promise<GrepResult> {
    const include = toList(body.include).map((pattern) => new Glob(pattern));
    const exclude = new ExcludeSet(toList(body.exclude));
    const listing = await this.list(containerId, body.path, exclude, { format: '%P\\0', fields: 1, filesOnly: true });
    const base = inSandbox(body.path).replace(/\/+$/, '') || '/';
    const prefix = base === '/' ? '/' : `${base}/`;
    const files: string[] = [];
    for (const [relative] of listing.records) {
      if (exclude.excludes(relative, false)) continue;
      if (include.length > 0 && !include.some((glob) => glob.matchesEntry(relative, false))) continue;
      files.push(prefix + relative);
    }
    const max = Math.min(body.max_results ?? this.options.grepDefaultResults, this.options.grepMaxResults);
    if (files.length === 0) return { items: [] };
    const result = await this.exec(
      containerId,
      shellArgv(GREP, [
        body.pattern,
        body.regex ? '-E' : '-F',
        body.case_sensitive === false ? '-i' : '--no-ignore-case',
        String(max + 1),
      ]),
      { stdin: Buffer.from(`${files.join('\0')}\0`), maxOutputBytes: 8 * MiB },
    );
    const stderr = result.stderr.toString('utf8');
    if (result.timedOut) throw commandError(result, 'grep', { path: body.path, kind: 'Directory' });
    if (result.stdout.length === 0) {
      const complaint = stderr.split('\n').find((line) => line.startsWith('grep: ') && !line.includes('warning'));
      if (complaint) throw new BadRequest(`Invalid pattern: ${complaint.slice(6)}`);
      return { items: [] };
    }
    const root = displayPath(body.path);
    const items = parseGrep(result.stdout, result.truncated).map((match) => ({
      path: match.path.startsWith(prefix) ? childPath(root, match.path.slice(prefix.length)) : match.path,
      line: match.line,
      content: match.content.length > GREP_CONTENT_CHARS ? match.content.slice(0, GREP_CONTENT_CHARS) : match.content,
    }));
    const truncated = items.length > max || result.truncated;
    return { items: items.slice(0, max), ...(truncated ? { truncated: true } : {}) };
  }

  // ---- helpers --------------------------------------------------------------------------

  private capped<T, R>(items: T[], truncated: boolean, shape: (items: T[], truncated: boolean) => R): R {
    if (items.length > this.options.maxItems) return shape(items.slice(0, this.options.maxItems), true);
    return shape(items, truncated);
  }

  /**
   * Entries below `path` from one find run: NUL-separated records of `fields` fields. Entries
   * with a literal excluded name are pruned by find itself; other exclude patterns are applied
   * by the caller with the linear-time matcher.
   */
  private async list(
    containerId: string,
    path: string,
    exclude: ExcludeSet,
    options: { format: string; fields: number; filesOnly?: boolean; maxDepth?: number },
  ): Promise<{ records: string[][]; truncated: boolean }> {
    const base = inSandbox(path);
    const findArgs = [
      '-H',
      base,
      '-mindepth',
      '1',
      ...(options.maxDepth !== undefined ? ['-maxdepth', String(options.maxDepth)] : []),
      ...exclude.findPruneArgs(),
      ...(options.filesOnly ? ['(', '-type', 'f', '-o', '-xtype', 'f', ')'] : []),
      '-printf',
      options.format,
    ];
    const result = await this.exec(containerId, shellArgv(LIST_DIRECTORY, [base, ...findArgs]), {
      maxOutputBytes: this.options.listOutputBytes,
    });
    const stderr = result.stderr.toString('utf8');
    if (markers(stderr).length > 0 || result.timedOut || (result.exitCode !== 0 && result.stdout.length === 0)) {
      throw commandError(result, 'list', { path, kind: 'Directory' });
    }
    if (result.exitCode !== 0) {
      // find carries on past unreadable or vanishing entries; the listing is still useful.
      log.warn('file listing incomplete', { exit_code: result.exitCode, stderr: stderr.slice(0, 300) });
    }
    const fields = result.stdout.toString('utf8').split('\0');
    fields.pop(); // after the last NUL: empty, or a record cut by the output cap
    const records: string[][] = [];
    for (let i = 0; i + options.fields <= fields.length; i += options.fields) {
      records.push(fields.slice(i, i + options.fields));
    }
    return { records, truncated: result.truncated };
  }

  /**
   * Reads files in one exec (a tar stream). `strict`: the first unreadable path fails the call;
   * otherwise each unreadable path yields `{error}` in its place.
   */
  private async readMany(
    containerId: string,
    paths: string[],
    strict: boolean,
  ): Promise<(Buffer | { error: string })[]> {
    const args = paths.map(inSandbox);
    checkArgvSize(args);
    const limit = this.options.readLimitBytes;
    // Tar adds a header block, padding, and a long-name entry per file, and 10 KiB at the end.
    const overhead = args.reduce((sum, arg) => sum + 2560 + Buffer.byteLength(arg), 20_480);
    const fast = await this.readFast(containerId, args, limit + overhead);
    if (fast) return fast;
    const result = await this.exec(containerId, shellArgv(READ_FILES, [strict ? '1' : '0', String(limit), ...args]), {
      maxOutputBytes: limit + overhead,
    });
    const stderr = result.stderr.toString('utf8');
    const found = markers(stderr);
    const tooBig = found.find((marker) => marker.status === 'TOOBIG');
    if (tooBig || result.truncated) {
      throw new PayloadTooLarge(`The files total more than ${limit / MiB} MiB; read fewer at a time`);
    }
    const subjects = paths.map((path) => ({ path }));
    if (result.timedOut) throw commandError(result, 'read', subjects[0], subjects);
    const failed = new Map<number, Errno>();
    for (const marker of found) failed.set(marker.index, marker.status as Errno);
    if (strict && failed.size > 0) throw commandError(result, 'read', subjects[0], subjects);
    const entries = parseTar(result.stdout).filter((entry) => entry.type === '0' || entry.type === '7');
    const expected = paths.length - failed.size;
    if (result.exitCode > 1 || entries.length !== expected) {
      // A file vanished between the checks and tar: report it like any missing file.
      throw commandError(result, 'read', subjects[0], subjects);
    }
    let next = 0;
    return paths.map((path, i) => {
      const errno = failed.get(i);
      if (errno) return { error: fileError(errno, { path }).message };
      return entries[next++].data;
    });
  }

  /**
   * The usual case in ONE process, because every process started in the sandbox costs several
   * milliseconds: dd for one path, tar for several. Their own results answer the checks
   * (missing? a directory? too big?); on anything unexpected this returns null and the checking
   * script runs, which names the path at fault.
   */
  private async readFast(containerId: string, args: string[], maxOutputBytes: number): Promise<Buffer[] | null> {
    const limit = this.options.readLimitBytes;
    if (args.length === 1) {
      const data = await this.readBytes(containerId, args[0], 0, limit + 1);
      // Empty output may be an empty file or something that is not a regular file: ask the script.
      return data && data.length > 0 && data.length <= limit ? [data] : null;
    }
    const result = await this.exec(
      containerId,
      ['tar', '-c', '-h', '--hard-dereference', '--no-recursion', '-f', '-', '--', ...args],
      { maxOutputBytes, finite: true },
    );
    // Exit code 1: a file changed while tar read it; its entry is still framed by its size.
    if (result.truncated || result.timedOut || result.exitCode > 1) return null;
    let entries;
    try {
      entries = parseTar(result.stdout);
    } catch {
      return null;
    }
    if (entries.length !== args.length || !entries.every((entry) => entry.type === '0' || entry.type === '7')) {
      return null;
    }
    const total = entries.reduce((sum, entry) => sum + entry.size, 0);
    return total <= limit ? entries.map((entry) => entry.data) : null;
  }

  /**
   * At most `count` bytes of one file from `offset`, with dd alone: it stops after `count`
   * bytes (a huge file or /dev/zero cannot stream on), and O_NONBLOCK keeps a FIFO from
   * blocking it, so it always ends on its own. Null when dd failed (the caller finds out why).
   */
  private async readBytes(containerId: string, path: string, offset: number, count: number): Promise<Buffer | null> {
    const result = await this.exec(
      containerId,
      [
        'dd',
        `if=${path}`,
        'bs=65536',
        `skip=${offset}`,
        `count=${count}`,
        'iflag=skip_bytes,count_bytes,fullblock,nonblock',
        'status=none',
      ],
      { maxOutputBytes: count + 65_536, finite: true },
    );
    return result.exitCode === 0 && !result.truncated && !result.timedOut ? result.stdout : null;
  }

  /**
   * Writes files in one exec. Per file: null when written, else what went wrong (a file after a
   * write that failed midway is not attempted: its detail is empty).
   */
  private async writeMany(
    containerId: string,
    files: FileUpload[],
    mode: 'create' | 'existing',
  ): Promise<({ errno?: Errno; detail: string } | null)[]> {
    const args: string[] = [mode];
    for (const file of files) args.push(inSandbox(file.path), String(file.data.length), file.mode ?? '-');
    checkArgvSize(args);
    const result = await this.exec(containerId, shellArgv(WRITE_FILES, args), {
      stdin: Buffer.concat(files.map((file) => file.data)),
    });
    if (result.timedOut) throw commandError(result, 'write', { path: files[0].path });
    const outcome: ({ errno?: Errno; detail: string } | null)[] = files.map(() => ({ detail: '' }));
    for (const marker of markers(result.stderr.toString('utf8'))) {
      if (marker.index >= files.length) continue;
      outcome[marker.index] =
        marker.status === 'OK' ? null : { errno: errnoFromText(marker.detail), detail: marker.detail };
    }
    return outcome;
  }

  /** Writes every file, or throws the error of the first that failed (the files before it stay written). */
  private async writeAll(containerId: string, files: FileUpload[]): Promise<void> {
    const outcome = await this.writeMany(containerId, files, 'create');
    outcome.forEach((failure, i) => {
      if (failure === null) return;
      const { path } = files[i];
      if (failure.errno === 'ENOENT' || failure.errno === 'ENOTDIR') {
        throw fileError(failure.errno, { path: parentDisplay(path), kind: 'Directory' });
      }
      if (failure.errno) throw fileError(failure.errno, { path });
      throw new BadRequest(`'${path}' could not be written${failure.detail ? `: ${failure.detail}` : ''}`);
    });
  }
}

function checkArgvSize(args: string[]): void {
  const bytes = args.reduce((sum, arg) => sum + Buffer.byteLength(arg) + 1, 0);
  if (bytes > MAX_ARGV_BYTES) throw new BadRequest('Too many or too long paths in one request; split it');
}

function toList(value: string | string[] | null | undefined): string[] {
  if (value == null) return [];
  return Array.isArray(value) ? value : [value];
}

/** Every occurrence, left to right, without overlaps; byte-exact. */
export function replaceAll(data: Buffer, find: Buffer, replace: Buffer): { data: Buffer; count: number } {
  const chunks: Buffer[] = [];
  let position = 0;
  let count = 0;
  for (;;) {
    const at = data.indexOf(find, position);
    if (at < 0) break;
    chunks.push(data.subarray(position, at), replace);
    position = at + find.length;
    count++;
  }
  if (count === 0) return { data, count };
  chunks.push(data.subarray(position));
  return { data: Buffer.concat(chunks), count };
}

/** One find -printf INFO_FORMAT record → FileInfo. */
export function fileInfo(record: string[], path: string): FileInfo {
  const [, type, targetType, size, mode, mtime, owner, group, link] = record;
  const info: FileInfo = {
    name: baseName(path),
    path,
    is_dir: targetType === 'd',
    size: Number(size),
    mode: mode.padStart(3, '0'),
    mtime: Math.floor(Number(mtime)),
    owner,
    group,
    is_symlink: type === 'l',
  };
  if (type === 'l') info.link_target = link;
  return info;
}

function sortTree(nodes: TreeNode[]): void {
  nodes.sort((a, b) =>
    a.type !== b.type ? (a.type === 'directory' ? -1 : 1) : a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  for (const node of nodes) if (node.children) sortTree(node.children);
}

/** `path NUL line ":" text LF` records (grep -Z -n -H); a record cut by the output cap is dropped. */
export function parseGrep(output: Buffer, truncated: boolean): { path: string; line: number; content: string }[] {
  const matches: { path: string; line: number; content: string }[] = [];
  let position = 0;
  while (position < output.length) {
    const nul = output.indexOf(0, position);
    if (nul < 0) break;
    const colon = output.indexOf(0x3a, nul + 1);
    const newline = output.indexOf(0x0a, nul + 1);
    if (colon < 0 || (newline >= 0 && newline < colon)) break;
    if (newline < 0 && truncated) break;
    const end = newline < 0 ? output.length : newline;
    matches.push({
      path: output.subarray(position, nul).toString('utf8'),
      line: Number(output.subarray(nul + 1, colon).toString('latin1')),
      content: output.subarray(colon + 1, end).toString('utf8'),
    });
    position = end + 1;
  }
  return matches;
}
