/** POSIX path helpers for paths inside a sandbox (never host paths). */

export function basename(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1) || '/';
}

export function dirname(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  const index = trimmed.lastIndexOf('/');
  if (index <= 0) return '/';
  return trimmed.slice(0, index);
}

export function joinPath(dir: string, name: string): string {
  if (name.startsWith('/')) return normalisePath(name);
  return normalisePath(`${dir.replace(/\/+$/, '')}/${name}`);
}

/** Resolves `.` and `..` and doubled slashes; stays absolute. */
export function normalisePath(path: string): string {
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (!part || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return `/${parts.join('/')}`;
}

/** `file` relative to `root`, or null when it is outside. */
export function relativeTo(root: string, file: string): string | null {
  const base = normalisePath(root);
  const target = normalisePath(file);
  if (target === base) return '';
  const prefix = base === '/' ? '/' : `${base}/`;
  return target.startsWith(prefix) ? target.slice(prefix.length) : null;
}

/** A file or folder name a user may type: no slashes, not `.` or `..`, not empty. */
export function validName(name: string): string | null {
  const trimmed = name.trim();
  if (!trimmed) return 'Enter a name';
  if (trimmed === '.' || trimmed === '..') return 'That name is reserved';
  if (trimmed.includes('\0')) return 'Names cannot contain NUL';
  if (trimmed.length > 255) return 'Names are at most 255 characters';
  return null;
}
