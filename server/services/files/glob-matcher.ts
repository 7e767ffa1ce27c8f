import { BadRequest } from '../../errors';

/**
 * Glob matching in time linear in the subject: the pattern is compiled into a small NFA and
 * simulated over the subject's code points with a set of active states (Thompson's
 * construction), so no input can trigger backtracking. Cost is O(subject length × pattern
 * states) whatever the pattern; `a*a*a*a*a*a*a*a*b` against a long string is no slower than `*`.
 *
 * Syntax: `*` any run of characters except `/`; `?` one character except `/`; `[abc]`, `[a-z]`,
 * `[!x]` / `[^x]` one character of (not of) a set, never `/`; `**` as a whole path segment spans
 * directories (`**` + `/` is zero or more directories, a trailing `/**` is everything below);
 * `{a,b}` alternatives; `\` escapes the next character. `*` also matches a leading dot.
 */

export const MAX_PATTERN_LENGTH = 1024;
/** Brace alternatives one pattern may expand to. */
export const MAX_ALTERNATIVES = 256;

/** NFA state kinds. */
const Kind = {
  /** One given code point. */
  Literal: 0,
  /** Any one code point but `/`. */
  One: 1,
  /** One code point of a set (never `/`). */
  Class: 2,
  /** `*`: loops on anything but `/`, or moves on without consuming. */
  Star: 3,
  /** Trailing `**`: loops on anything, or moves on. */
  Any: 4,
  /** `**` + `/`, entry: skip (zero directories) or enter the inner loop. */
  SegmentsEntry: 5,
  /** `**` + `/`, inner: loops on anything; a `/` may also leave the loop. */
  SegmentsInner: 6,
} as const;
type Kind = (typeof Kind)[keyof typeof Kind];

interface State {
  kind: Kind;
  codePoint?: number;
  negated?: boolean;
  ranges?: number[];
}

const SLASH = 0x2f;

function inClass(state: State, c: number): boolean {
  const ranges = state.ranges!;
  let found = false;
  for (let i = 0; i < ranges.length; i += 2) {
    if (c >= ranges[i] && c <= ranges[i + 1]) {
      found = true;
      break;
    }
  }
  return found !== state.negated;
}

function codePoints(text: string): number[] {
  const out: number[] = [];
  for (const char of text) out.push(char.codePointAt(0)!);
  return out;
}

/** Parses `[...]` starting at `start` (the `[`); returns the state and the index after `]`, or null. */
function parseClass(chars: number[], start: number): { state: State; next: number } | null {
  let i = start + 1;
  let negated = false;
  if (chars[i] === 0x21 /* ! */ || chars[i] === 0x5e /* ^ */) {
    negated = true;
    i++;
  }
  const ranges: number[] = [];
  let first = true;
  while (i < chars.length) {
    let c = chars[i];
    if (c === 0x5d /* ] */ && !first) {
      return { state: { kind: Kind.Class, negated, ranges }, next: i + 1 };
    }
    first = false;
    if (c === 0x5c /* \ */ && i + 1 < chars.length) c = chars[++i];
    let high = c;
    if (chars[i + 1] === 0x2d /* - */ && i + 2 < chars.length && chars[i + 2] !== 0x5d) {
      high = chars[i + 2];
      if (high === 0x5c && i + 3 < chars.length) {
        high = chars[i + 3];
        i++;
      }
      i += 2;
    }
    ranges.push(Math.min(c, high), Math.max(c, high));
    i++;
  }
  return null;
}

function compileStates(pattern: string): State[] {
  const chars = codePoints(pattern);
  const states: State[] = [];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (c === 0x2a /* * */) {
      let end = i;
      while (chars[end + 1] === 0x2a) end++;
      const double = end > i;
      const segmentStart = i === 0 || chars[i - 1] === SLASH;
      const next = chars[end + 1];
      if (double && segmentStart && next === SLASH) {
        states.push({ kind: Kind.SegmentsEntry }, { kind: Kind.SegmentsInner });
        i = end + 1; // the `/` belongs to the construct
      } else if (double && segmentStart && next === undefined) {
        states.push({ kind: Kind.Any });
        i = end;
      } else {
        // Runs of stars inside a segment are one star (keeps the state count small).
        if (states.at(-1)?.kind !== Kind.Star) states.push({ kind: Kind.Star });
        i = end;
      }
    } else if (c === 0x3f /* ? */) {
      states.push({ kind: Kind.One });
    } else if (c === 0x5b /* [ */) {
      const parsed = parseClass(chars, i);
      if (parsed) {
        states.push(parsed.state);
        i = parsed.next - 1;
      } else {
        states.push({ kind: Kind.Literal, codePoint: c });
      }
    } else if (c === 0x5c /* \ */ && i + 1 < chars.length) {
      states.push({ kind: Kind.Literal, codePoint: chars[++i] });
    } else {
      states.push({ kind: Kind.Literal, codePoint: c });
    }
  }
  return states;
}

/** One compiled alternative: the NFA and its reusable simulation buffers. */
class Automaton {
  private readonly mark: Uint32Array;
  private generation = 0;
  private current: number[] = [];
  private next: number[] = [];

  constructor(private readonly states: State[]) {
    this.mark = new Uint32Array(states.length + 1);
  }

  /** Adds `s` and everything reachable from it without consuming input. */
  private add(set: number[], s: number): void {
    const stack = [s];
    while (stack.length > 0) {
      const state = stack.pop()!;
      if (this.mark[state] === this.generation) continue;
      this.mark[state] = this.generation;
      set.push(state);
      const kind = this.states[state]?.kind;
      if (kind === Kind.Star || kind === Kind.Any) stack.push(state + 1);
      else if (kind === Kind.SegmentsEntry) stack.push(state + 2, state + 1);
    }
  }

  private nextGeneration(): void {
    this.generation++;
    if (this.generation === 0xffffffff) {
      this.mark.fill(0);
      this.generation = 1;
    }
  }

  matches(subject: string): boolean {
    const accept = this.states.length;
    this.nextGeneration();
    this.current.length = 0;
    this.add(this.current, 0);
    for (let k = 0; k < subject.length;) {
      const c = subject.codePointAt(k)!;
      k += c > 0xffff ? 2 : 1;
      this.nextGeneration();
      this.next.length = 0;
      for (const s of this.current) {
        if (s === accept) continue;
        const state = this.states[s];
        switch (state.kind) {
          case Kind.Literal:
            if (c === state.codePoint) this.add(this.next, s + 1);
            break;
          case Kind.One:
            if (c !== SLASH) this.add(this.next, s + 1);
            break;
          case Kind.Class:
            if (c !== SLASH && inClass(state, c)) this.add(this.next, s + 1);
            break;
          case Kind.Star:
            if (c !== SLASH) this.add(this.next, s);
            break;
          case Kind.Any:
            this.add(this.next, s);
            break;
          case Kind.SegmentsInner:
            this.add(this.next, s);
            if (c === SLASH) this.add(this.next, s + 1);
            break;
          case Kind.SegmentsEntry:
            break; // epsilon-only; its successors are already in the set
        }
      }
      [this.current, this.next] = [this.next, this.current];
      if (this.current.length === 0) return false;
    }
    return this.current.includes(accept);
  }
}

/**
 * `{a,b}c` → `ac`, `bc` (nested and repeated groups too). A `{` without a matching `}` and a
 * comma is literal. More than `max` results is refused rather than built.
 */
export function expandBraces(pattern: string, max = MAX_ALTERNATIVES): string[] {
  const results: string[] = [];
  const pending = [pattern];
  while (pending.length > 0) {
    const current = pending.pop()!;
    const group = findBraceGroup(current);
    if (!group) {
      results.push(current);
    } else {
      const prefix = current.slice(0, group.open);
      const suffix = current.slice(group.close + 1);
      for (let i = group.alternatives.length - 1; i >= 0; i--) {
        pending.push(prefix + group.alternatives[i] + suffix);
      }
    }
    if (results.length + pending.length > max) {
      throw new BadRequest(`Pattern '${pattern}' expands to more than ${max} alternatives`);
    }
  }
  return results;
}

function findBraceGroup(text: string): { open: number; close: number; alternatives: string[] } | null {
  for (let open = 0; open < text.length; open++) {
    if (text[open] === '\\') {
      open++;
      continue;
    }
    if (text[open] !== '{') continue;
    let depth = 0;
    const commas: number[] = [];
    for (let i = open + 1; i < text.length; i++) {
      const c = text[i];
      if (c === '\\') {
        i++;
      } else if (c === '{') {
        depth++;
      } else if (c === '}') {
        if (depth === 0) {
          if (commas.length === 0) break; // `{x}` is literal
          const bounds = [open, ...commas, i];
          const alternatives = bounds.slice(1).map((end, k) => text.slice(bounds[k] + 1, end));
          return { open, close: i, alternatives };
        }
        depth--;
      } else if (c === ',' && depth === 0) {
        commas.push(i);
      }
    }
  }
  return null;
}

/** Matches `subject` against `pattern` as written (no anchoring or name/path choice). */
export function matchRaw(pattern: string, subject: string): boolean {
  return expandBraces(pattern).some((alternative) => new Automaton(compileStates(alternative)).matches(subject));
}

/** Whether `text` contains no glob syntax at all (matched by plain string equality). */
export function isLiteralPattern(text: string): boolean {
  return !/[*?[\\{]/.test(text);
}

/**
 * A compiled glob. A pattern without `/` is tested against a file name, one with `/` against
 * the path relative to the search root. A leading `/` or `./` anchors at the root and is
 * dropped; a trailing `/` restricts the pattern to directories.
 */
export class Glob {
  readonly source: string;
  /** Tested against the relative path (the pattern contains `/`) rather than the name. */
  readonly matchesPath: boolean;
  /** Only matches directories (the pattern ended with `/`). */
  readonly directoryOnly: boolean;
  /** The pattern without anchors, when it has no glob syntax. */
  readonly literal: string | null;
  private readonly automata: Automaton[];

  constructor(pattern: string) {
    if (pattern.length > MAX_PATTERN_LENGTH) {
      throw new BadRequest(`Pattern is longer than ${MAX_PATTERN_LENGTH} characters`);
    }
    this.source = pattern;
    let body = pattern;
    while (body.startsWith('./')) body = body.slice(2);
    body = body.replace(/^\/+/, '');
    this.directoryOnly = body.length > 1 && body.endsWith('/');
    body = body.replace(/\/+$/, '');
    this.matchesPath = body.includes('/');
    this.literal = isLiteralPattern(body) ? body : null;
    this.automata = expandBraces(body).map((alternative) => new Automaton(compileStates(alternative)));
  }

  /** Tests a string as is (no name/path choice). */
  test(subject: string): boolean {
    return this.automata.some((automaton) => automaton.matches(subject));
  }

  /** Tests an entry found under the search root: `relativePath` uses `/` and has no leading `/`. */
  matchesEntry(relativePath: string, isDirectory: boolean): boolean {
    if (this.directoryOnly && !isDirectory) return false;
    if (this.matchesPath) return this.test(relativePath);
    const slash = relativePath.lastIndexOf('/');
    return this.test(slash < 0 ? relativePath : relativePath.slice(slash + 1));
  }
}

/**
 * Exclude patterns: an entry is excluded when it, or any directory above it (up to the search
 * root), matches one of them. Plain names (`node_modules`, `.git`) are also handed to `find` so
 * that whole trees are pruned inside the sandbox without being listed.
 */
export class ExcludeSet {
  private readonly globs: Glob[];
  private readonly directoryCache = new Map<string, boolean>();

  constructor(patterns: readonly string[] = []) {
    this.globs = patterns.filter((pattern) => pattern.replace(/[./]/g, '') !== '').map((p) => new Glob(p));
  }

  get empty(): boolean {
    return this.globs.length === 0;
  }

  /**
   * A `find` expression fragment that prunes entries with a literal excluded name, followed by
   * `-o`; empty when there is none. Each name is its own argv element, never a shell word, and
   * contains no glob syntax, so find's own matcher compares it as a plain string.
   */
  findPruneArgs(): string[] {
    const tests: string[][] = [];
    for (const glob of this.globs) {
      if (glob.literal === null || glob.matchesPath) continue;
      tests.push(glob.directoryOnly ? ['(', '-type', 'd', '-name', glob.literal, ')'] : ['-name', glob.literal]);
    }
    if (tests.length === 0) return [];
    const joined = tests.flatMap((test, i) => (i === 0 ? test : ['-o', ...test]));
    return ['(', ...joined, ')', '-prune', '-o'];
  }

  /** Whether this entry itself matches a pattern (its ancestors are not looked at). */
  matchesItself(relativePath: string, isDirectory: boolean): boolean {
    return this.globs.some((glob) => glob.matchesEntry(relativePath, isDirectory));
  }

  /** Whether the entry or a directory above it is excluded. */
  excludes(relativePath: string, isDirectory: boolean): boolean {
    if (this.globs.length === 0) return false;
    const slash = relativePath.lastIndexOf('/');
    if (slash > 0 && this.directoryExcluded(relativePath.slice(0, slash))) return true;
    return this.matchesItself(relativePath, isDirectory);
  }

  private directoryExcluded(directory: string): boolean {
    const cached = this.directoryCache.get(directory);
    if (cached !== undefined) return cached;
    const slash = directory.lastIndexOf('/');
    const result =
      (slash > 0 && this.directoryExcluded(directory.slice(0, slash))) || this.matchesItself(directory, true);
    this.directoryCache.set(directory, result);
    return result;
  }
}
