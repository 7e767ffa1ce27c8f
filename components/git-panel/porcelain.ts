/**
 * Parses `git status --porcelain=v2 --branch` (what the status route returns) and the output of
 * `git branch`, for the git panel.
 */
export interface ChangedFile {
  /** Path relative to the repository root. */
  path: string;
  /** The previous path of a rename or copy. */
  origPath?: string;
  /** One letter: M modified, A added, D deleted, R renamed, C copied, T type changed, U unmerged, ? untracked. */
  code: string;
}

export interface GitStatus {
  branch: string | null;
  detached: boolean;
  oid: string | null;
  upstream: string | null;
  ahead: number;
  behind: number;
  staged: ChangedFile[];
  unstaged: ChangedFile[];
  untracked: ChangedFile[];
  conflicted: ChangedFile[];
}

/** Undoes git's C-style quoting of unusual paths ("a\tb", "\303\251"). */
export function unquotePath(value: string): string {
  if (value.length < 2 || !value.startsWith('"') || !value.endsWith('"')) return value;
  const inner = value.slice(1, -1);
  const bytes: number[] = [];
  const simple: Record<string, number> = { n: 10, t: 9, r: 13, '"': 34, '\\': 92, a: 7, b: 8, f: 12, v: 11 };
  for (let i = 0; i < inner.length; i++) {
    const char = inner[i];
    if (char !== '\\') {
      bytes.push(...new TextEncoder().encode(char));
      continue;
    }
    const next = inner[i + 1];
    if (/[0-7]/.test(next ?? '') && /^[0-7]{3}$/.test(inner.slice(i + 1, i + 4))) {
      bytes.push(parseInt(inner.slice(i + 1, i + 4), 8));
      i += 3;
    } else if (next !== undefined && next in simple) {
      bytes.push(simple[next]);
      i += 1;
    } else bytes.push(92);
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

/** Splits `count` space-separated fields off the front; the rest (a path with spaces) stays whole. */
function fields(line: string, count: number): string[] | null {
  const parts: string[] = [];
  let rest = line;
  for (let i = 0; i < count; i++) {
    const space = rest.indexOf(' ');
    if (space < 0) return null;
    parts.push(rest.slice(0, space));
    rest = rest.slice(space + 1);
  }
  parts.push(rest);
  return parts;
}

export function parseStatus(output: string): GitStatus {
  const status: GitStatus = {
    branch: null,
    detached: false,
    oid: null,
    upstream: null,
    ahead: 0,
    behind: 0,
    staged: [],
    unstaged: [],
    untracked: [],
    conflicted: [],
  };
  for (const line of output.split('\n')) {
    if (!line) continue;
    if (line.startsWith('# branch.oid ')) {
      const oid = line.slice('# branch.oid '.length).trim();
      status.oid = oid === '(initial)' ? null : oid;
    } else if (line.startsWith('# branch.head ')) {
      const head = line.slice('# branch.head '.length).trim();
      status.detached = head === '(detached)';
      status.branch = status.detached ? null : head;
    } else if (line.startsWith('# branch.upstream ')) {
      status.upstream = line.slice('# branch.upstream '.length).trim();
    } else if (line.startsWith('# branch.ab ')) {
      const match = /\+(\d+) -(\d+)/.exec(line);
      if (match) {
        status.ahead = Number(match[1]);
        status.behind = Number(match[2]);
      }
    } else if (line.startsWith('1 ')) {
      // 1 <XY> <sub> <mH> <mI> <mW> <hH> <hI> <path>
      const parts = fields(line, 8);
      if (parts) addChange(status, parts[1], unquotePath(parts[8]));
    } else if (line.startsWith('2 ')) {
      // 2 <XY> <sub> <mH> <mI> <mW> <hH> <hI> <X><score> <path><sep><origPath>
      const parts = fields(line, 9);
      if (parts) {
        const [path, origPath] = parts[9].split('\t');
        addChange(status, parts[1], unquotePath(path), origPath ? unquotePath(origPath) : undefined);
      }
    } else if (line.startsWith('u ')) {
      // u <XY> <sub> <m1> <m2> <m3> <mW> <h1> <h2> <h3> <path>
      const parts = fields(line, 10);
      if (parts) status.conflicted.push({ path: unquotePath(parts[10]), code: 'U' });
    } else if (line.startsWith('? ')) {
      status.untracked.push({ path: unquotePath(line.slice(2)), code: '?' });
    }
  }
  return status;
}

function addChange(status: GitStatus, xy: string, path: string, origPath?: string): void {
  const [x, y] = [xy[0] ?? '.', xy[1] ?? '.'];
  if (x !== '.') status.staged.push({ path, code: x, ...(origPath ? { origPath } : {}) });
  if (y !== '.') status.unstaged.push({ path, code: y, ...(origPath ? { origPath } : {}) });
}

export interface BranchList {
  current: string | null;
  branches: string[];
}

/** `git branch` output: `* main`, `  feature`, `* (HEAD detached at 1a2b3c)`, `+ wt-branch`. */
export function parseBranches(output: string): BranchList {
  const list: BranchList = { current: null, branches: [] };
  for (const raw of output.split('\n')) {
    const line = raw.replace(/\s+$/, '');
    if (!line.trim()) continue;
    const marker = line[0];
    const name = line
      .slice(2)
      .trim()
      .split(/\s+->\s+/)[0];
    if (!name || name.startsWith('(')) continue;
    list.branches.push(name);
    if (marker === '*') list.current = name;
  }
  return list;
}

/** A commit as the git panel lists it. */
export interface LogEntry {
  sha: string;
  author: string;
  date: string;
  subject: string;
}

export function parseLog(output: string): LogEntry[] {
  const entries: LogEntry[] = [];
  let current: LogEntry | null = null;
  for (const line of output.split('\n')) {
    const commit = /^commit ([0-9a-f]{7,64})/.exec(line);
    if (commit) {
      current = { sha: commit[1], author: '', date: '', subject: '' };
      entries.push(current);
    } else if (current && line.startsWith('Author:')) current.author = line.slice(7).trim();
    else if (current && line.startsWith('Date:')) current.date = line.slice(5).trim();
    else if (current && !current.subject && line.startsWith('    ')) current.subject = line.trim();
  }
  if (entries.length > 0) return entries;
  // `--oneline` and similar short formats: `<sha> <subject>`.
  for (const line of output.split('\n')) {
    const short = /^([0-9a-f]{7,64}) (.*)$/.exec(line.trim());
    if (short) entries.push({ sha: short[1], author: '', date: '', subject: short[2] });
  }
  return entries;
}
