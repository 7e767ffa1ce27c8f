import { posix } from 'node:path';

/** The sandbox work dir: relative paths resolve against it, as a shell started there would. */
export const WORK_DIR = '/workspace';

/**
 * The path handed to commands inside the sandbox. Relative paths are prefixed with the work dir
 * textually, exactly what the kernel does with a relative path and that working directory, so
 * `..` and symlinks still resolve inside the sandbox (nothing is normalised here). The result
 * always starts with `/`, so no command can mistake it for an option.
 */
export function inSandbox(path: string): string {
  return path.startsWith('/') ? path : `${WORK_DIR}/${path}`;
}

/** The absolute path shown in responses: lexically normalised, without a trailing slash. */
export function displayPath(path: string): string {
  const normal = posix.normalize(inSandbox(path));
  return normal.length > 1 && normal.endsWith('/') ? normal.slice(0, -1) : normal;
}

/** `display` joined with a relative path found below it. */
export function childPath(display: string, relative: string): string {
  return display === '/' ? `/${relative}` : `${display}/${relative}`;
}

/** The last segment of a path as written (`a/b/` → `b`; `/` → `/`). */
export function baseName(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  if (trimmed === '') return path.startsWith('/') ? '/' : path;
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

/** The directory a path would be created in, for messages (`Directory '…' not found`). */
export function parentDisplay(path: string): string {
  return posix.dirname(displayPath(path));
}
