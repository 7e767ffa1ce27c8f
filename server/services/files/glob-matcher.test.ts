import { describe, expect, it } from 'vitest';
import { ExcludeSet, Glob, expandBraces, matchRaw } from './glob-matcher';

function matches(pattern: string, subject: string): boolean {
  return new Glob(pattern).test(subject);
}

/** A backtracking reference (a RegExp) for small inputs only: same syntax, independent engine. */
function reference(pattern: string, subject: string): boolean {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*') {
      let end = i;
      while (pattern[end + 1] === '*') end++;
      const segmentStart = i === 0 || pattern[i - 1] === '/';
      if (end > i && segmentStart && pattern[end + 1] === '/') {
        source += '(?:.*/)?';
        i = end + 1;
      } else if (end > i && segmentStart && end + 1 === pattern.length) {
        source += '.*';
        i = end;
      } else {
        source += '[^/]*';
        i = end;
      }
    } else if (c === '?') source += '[^/]';
    else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 's').test(subject);
}

describe('glob matcher', () => {
  it('matches names with *, ? and classes', () => {
    expect(matches('*.ts', 'index.ts')).toBe(true);
    expect(matches('*.ts', 'index.tsx')).toBe(false);
    expect(matches('*.ts', '.hidden.ts')).toBe(true);
    expect(matches('file?.txt', 'file1.txt')).toBe(true);
    expect(matches('file?.txt', 'file10.txt')).toBe(false);
    expect(matches('[abc]*', 'banana')).toBe(true);
    expect(matches('[!abc]*', 'banana')).toBe(false);
    expect(matches('[^abc]*', 'zebra')).toBe(true);
    expect(matches('[a-c]x', 'bx')).toBe(true);
    expect(matches('[a-c]x', 'dx')).toBe(false);
    expect(matches('[]]', ']')).toBe(true);
    expect(matches('[a-]', '-')).toBe(true);
    expect(matches('a[', 'a[')).toBe(true);
    expect(matches('\\*', '*')).toBe(true);
    expect(matches('\\*', 'x')).toBe(false);
    expect(matches('', '')).toBe(true);
  });

  it('never lets *, ? or a class cross a /', () => {
    expect(matches('*', 'a/b')).toBe(false);
    expect(matches('a?b', 'a/b')).toBe(false);
    expect(matches('a[/]b', 'a/b')).toBe(false);
    expect(matches('src/*.ts', 'src/a.ts')).toBe(true);
    expect(matches('src/*.ts', 'src/x/a.ts')).toBe(false);
  });

  it('lets ** span directories only as a whole segment', () => {
    expect(matches('**/*.ts', 'a.ts')).toBe(true);
    expect(matches('**/*.ts', 'x/y/a.ts')).toBe(true);
    expect(matches('**/x', 'ax')).toBe(false);
    expect(matches('src/**/test/*.ts', 'src/test/a.ts')).toBe(true);
    expect(matches('src/**/test/*.ts', 'src/a/b/test/a.ts')).toBe(true);
    expect(matches('src/**/test/*.ts', 'src/a/btest/a.ts')).toBe(false);
    expect(matches('src/**', 'src/a/b/c')).toBe(true);
    expect(matches('src/**', 'src')).toBe(false);
    expect(matches('src/**', 'srcx/a')).toBe(false);
    expect(matches('**', 'any/thing/at/all')).toBe(true);
    // Not a whole segment: an ordinary star.
    expect(matches('a**b', 'axxb')).toBe(true);
    expect(matches('a**b', 'ax/xb')).toBe(false);
  });

  it('compares code points, not UTF-16 units', () => {
    expect(matches('?.txt', '😀.txt')).toBe(true);
    expect(matches('[😀-😂]', '😁')).toBe(true);
    expect(matches('ü*', 'über')).toBe(true);
  });

  it('expands braces, including nested ones, and refuses explosions', () => {
    expect(expandBraces('*.{ts,tsx}')).toEqual(['*.ts', '*.tsx']);
    expect(expandBraces('{a,b{c,d}}x')).toEqual(['ax', 'bcx', 'bdx']);
    expect(expandBraces('{x}')).toEqual(['{x}']);
    expect(expandBraces('\\{a,b}')).toEqual(['\\{a,b}']);
    expect(matches('**/*.{js,ts}', 'a/b.ts')).toBe(true);
    expect(matches('**/*.{js,ts}', 'a/b.py')).toBe(false);
    expect(() => expandBraces('{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}')).toThrow(/more than 256/);
  });

  it('matches a pathological pattern against a long subject correctly', () => {
    const pattern = 'a*a*a*a*a*a*a*a*b';
    const long = 'a'.repeat(50_000);
    expect(matches(pattern, long)).toBe(false);
    expect(matches(pattern, `${long}b`)).toBe(true);
    expect(matches(`${'*a'.repeat(100)}*b`, long)).toBe(false);
    expect(matches('**/**/**/**/**/**/x', `${'d/'.repeat(5000)}y`)).toBe(false);
    expect(matches('**/**/**/**/**/**/x', `${'d/'.repeat(5000)}x`)).toBe(true);
  });

  it('agrees with a backtracking reference on random patterns', () => {
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const patternAlphabet = ['a', 'b', '/', '*', '?', '**', '.'];
    const subjectAlphabet = ['a', 'b', '/', '.'];
    for (let round = 0; round < 3000; round++) {
      const pattern = Array.from({ length: 1 + random(7) }, () => patternAlphabet[random(patternAlphabet.length)]).join(
        '',
      );
      const subject = Array.from({ length: random(9) }, () => subjectAlphabet[random(subjectAlphabet.length)]).join('');
      expect([pattern, subject, matchRaw(pattern, subject)]).toEqual([pattern, subject, reference(pattern, subject)]);
    }
  });

  it('tests names or relative paths depending on the pattern', () => {
    const name = new Glob('*.md');
    expect(name.matchesEntry('docs/deep/readme.md', false)).toBe(true);
    const path = new Glob('docs/*.md');
    expect(path.matchesEntry('docs/readme.md', false)).toBe(true);
    expect(path.matchesEntry('other/docs/readme.md', false)).toBe(false);
    const anchored = new Glob('/docs/*.md');
    expect(anchored.matchesEntry('docs/readme.md', false)).toBe(true);
    const dirOnly = new Glob('build/');
    expect(dirOnly.matchesEntry('build', true)).toBe(true);
    expect(dirOnly.matchesEntry('build', false)).toBe(false);
  });
});

describe('exclude set', () => {
  it('excludes entries below an excluded directory, by name or by path', () => {
    const set = new ExcludeSet(['node_modules', 'dist/cache', '*.log']);
    expect(set.excludes('node_modules/x/index.js', false)).toBe(true);
    expect(set.excludes('pkg/node_modules/x.js', false)).toBe(true);
    expect(set.excludes('dist/cache/a/b', false)).toBe(true);
    expect(set.excludes('dist/other/a', false)).toBe(false);
    expect(set.excludes('src/app.log', false)).toBe(true);
    expect(set.excludes('src/app.ts', false)).toBe(false);
  });

  it('hands only plain names to find, each as its own argument', () => {
    expect(new ExcludeSet(['node_modules', '.git/', '*.log', 'a/b']).findPruneArgs()).toEqual([
      '(',
      '-name',
      'node_modules',
      '-o',
      '(',
      '-type',
      'd',
      '-name',
      '.git',
      ')',
      ')',
      '-prune',
      '-o',
    ]);
    expect(new ExcludeSet(['*.log']).findPruneArgs()).toEqual([]);
    expect(new ExcludeSet([]).empty).toBe(true);
  });
});
