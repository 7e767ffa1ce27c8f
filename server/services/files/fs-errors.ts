import { BadRequest, Conflict, NotFound, PayloadTooLarge, PermissionDenied, type DomainError } from '../../errors';
import type { ExecResult } from '../../runtime/types';

/**
 * The one place where a failure inside the sandbox becomes a domain error. Commands run with
 * LC_ALL=C, so their messages carry the C library's strerror text, which names the errno. Our
 * own scripts report what they detect as `shoal:<ERRNO>:<index>` lines on stderr.
 */
export type Errno =
  | 'ENOENT'
  | 'ENOTDIR'
  | 'ELOOP'
  | 'EEXIST'
  | 'ENOTEMPTY'
  | 'EBUSY'
  | 'ETXTBSY'
  | 'EACCES'
  | 'EPERM'
  | 'EROFS'
  | 'EISDIR'
  | 'ENOTREG'
  | 'ENOSPC'
  | 'EDQUOT'
  | 'EFBIG'
  | 'ENAMETOOLONG'
  | 'EINVAL'
  | 'EXDEV';

const STRERROR: [string, Errno][] = [
  ['No such file or directory', 'ENOENT'],
  ['Not a directory', 'ENOTDIR'],
  ['Too many levels of symbolic links', 'ELOOP'],
  ['File exists', 'EEXIST'],
  ['Directory not empty', 'ENOTEMPTY'],
  ['Device or resource busy', 'EBUSY'],
  ['Text file busy', 'ETXTBSY'],
  ['Permission denied', 'EACCES'],
  ['Operation not permitted', 'EPERM'],
  ['Read-only file system', 'EROFS'],
  ['Is a directory', 'EISDIR'],
  ['No space left on device', 'ENOSPC'],
  ['Disk quota exceeded', 'EDQUOT'],
  ['File too large', 'EFBIG'],
  ['File name too long', 'ENAMETOOLONG'],
  ['Invalid argument', 'EINVAL'],
  ['Invalid cross-device link', 'EXDEV'],
];

const ERRNO_TEXT: Record<Errno, string> = {
  ...(Object.fromEntries(STRERROR.map(([text, errno]) => [errno, text])) as Record<Errno, string>),
  ENOTREG: 'Not a regular file',
};

const ERRNOS = new Set<string>(Object.keys(ERRNO_TEXT));

/** The errno named by a command's message, if any. */
export function errnoFromText(text: string): Errno | undefined {
  return STRERROR.find(([message]) => text.includes(message))?.[1];
}

export interface Marker {
  status: string;
  index: number;
  /** Text after the index (`shoal:ERR:3:<message>`), when any. */
  detail: string;
}

const MARKER = /(?:^|\n)shoal:([A-Z]+):(\d+)(?::([^\n]*))?/g;

/** Every `shoal:STATUS:index[:detail]` line our scripts wrote on stderr. */
export function markers(stderr: string): Marker[] {
  return [...stderr.matchAll(MARKER)].map((match) => ({
    status: match[1],
    index: Number(match[2]),
    detail: match[3] ?? '',
  }));
}

/** What the failing path is, for the message: `File 'x' not found` or `Directory 'x' not found`. */
export type Subject = { path: string; kind?: 'File' | 'Directory' | 'Path' };

export function fileError(errno: Errno, subject: Subject): DomainError {
  const { path } = subject;
  switch (errno) {
    case 'ENOENT':
    case 'ENOTDIR':
    case 'ELOOP':
      return new NotFound(subject.kind ?? 'File', path);
    case 'EEXIST':
      return new Conflict(`'${path}' already exists`);
    case 'ENOTEMPTY':
      return new Conflict(`Directory '${path}' is not empty`);
    case 'EBUSY':
    case 'ETXTBSY':
      return new Conflict(`'${path}' is busy (${ERRNO_TEXT[errno]})`);
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return new PermissionDenied(`Permission denied: '${path}' (${ERRNO_TEXT[errno]})`);
    case 'EISDIR':
      return new BadRequest(`'${path}' is a directory`);
    case 'ENOTREG':
      return new BadRequest(`'${path}' is not a regular file`);
    case 'ENOSPC':
    case 'EDQUOT':
      return new PayloadTooLarge(`No space left in the sandbox for '${path}' (${ERRNO_TEXT[errno]})`);
    case 'EFBIG':
      return new PayloadTooLarge(`'${path}' is too large`);
    case 'ENAMETOOLONG':
    case 'EINVAL':
    case 'EXDEV':
      return new BadRequest(`'${path}': ${ERRNO_TEXT[errno]}`);
  }
}

/** The first line of a command's complaint, without the `tool: ` prefix, for messages. */
function firstLine(stderr: string): string {
  const line =
    stderr
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '' && !l.startsWith('shoal:')) ?? '';
  return line.replace(/^[\w.-]+: /, '').slice(0, 300);
}

/**
 * Turns a failed command into a domain error. `subjects[i]` is the path our script's marker
 * index `i` refers to; a message from the command itself is blamed on `fallback`.
 */
export function commandError(
  result: ExecResult,
  operation: string,
  fallback: Subject,
  subjects: Subject[] = [fallback],
): Error {
  const stderr = result.stderr.toString('utf8');
  if (result.timedOut) {
    return new BadRequest(`${operation} did not finish within the time limit; narrow the path or pattern`);
  }
  for (const marker of markers(stderr)) {
    if (!ERRNOS.has(marker.status)) continue;
    return fileError(marker.status as Errno, subjects[marker.index] ?? fallback);
  }
  if (result.exitCode === 126 || result.exitCode === 127) {
    // The sandbox image lacks a tool we rely on (coreutils, findutils, tar, grep): not the caller's fault.
    return new Error(`${operation}: command unavailable in the sandbox: ${firstLine(stderr)}`);
  }
  const errno = errnoFromText(stderr);
  if (errno) return fileError(errno, fallback);
  if (/invalid (user|group)/.test(stderr)) return new BadRequest(`Unknown user or group: ${firstLine(stderr)}`);
  if (/into itself/.test(stderr)) return new BadRequest(`${operation} failed: ${firstLine(stderr)}`);
  const reason = firstLine(stderr) || `exit code ${result.exitCode}`;
  return new BadRequest(`${operation} failed: ${reason}`);
}

/** The message a per-file result carries (edit-files items). */
export function describeFailure(errno: Errno | undefined, path: string, detail: string): string {
  if (errno) return fileError(errno, { path }).message;
  return detail ? `'${path}': ${detail.replace(/^[\w.-]+: /, '')}` : `'${path}' could not be written`;
}
