import { describe, expect, it } from 'vitest';
import { parseBranches, parseLog, parseStatus, unquotePath } from './porcelain';

describe('parseStatus', () => {
  it('reads branch, upstream, ahead/behind and groups changes', () => {
    const output = [
      '# branch.oid 1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c',
      '# branch.head main',
      '# branch.upstream origin/main',
      '# branch.ab +2 -1',
      '1 M. N... 100644 100644 100644 aaaa bbbb src/app.ts',
      '1 .M N... 100644 100644 100644 aaaa aaaa README.md',
      '1 MM N... 100644 100644 100644 aaaa bbbb both.txt',
      '1 A. N... 000000 100644 100644 0000 cccc new file.txt',
      '2 R. N... 100644 100644 100644 aaaa aaaa R100 renamed.txt\told.txt',
      'u UU N... 100644 100644 100644 100644 a b c conflict.txt',
      '? notes.md',
      '? "caf\\303\\251.txt"',
      '',
    ].join('\n');
    const status = parseStatus(output);
    expect(status.branch).toBe('main');
    expect(status.upstream).toBe('origin/main');
    expect([status.ahead, status.behind]).toEqual([2, 1]);
    expect(status.staged.map((f) => `${f.code} ${f.path}`)).toEqual([
      'M src/app.ts',
      'M both.txt',
      'A new file.txt',
      'R renamed.txt',
    ]);
    expect(status.staged[3].origPath).toBe('old.txt');
    expect(status.unstaged.map((f) => f.path)).toEqual(['README.md', 'both.txt']);
    expect(status.untracked.map((f) => f.path)).toEqual(['notes.md', 'café.txt']);
    expect(status.conflicted.map((f) => f.path)).toEqual(['conflict.txt']);
  });

  it('handles a fresh repository and a detached HEAD', () => {
    const fresh = parseStatus('# branch.oid (initial)\n# branch.head master\n? a.txt\n');
    expect(fresh.oid).toBeNull();
    expect(fresh.branch).toBe('master');
    expect(fresh.untracked).toHaveLength(1);
    const detached = parseStatus('# branch.oid abc\n# branch.head (detached)\n');
    expect(detached.detached).toBe(true);
    expect(detached.branch).toBeNull();
  });
});

describe('unquotePath', () => {
  it('decodes escapes and leaves plain paths alone', () => {
    expect(unquotePath('plain.txt')).toBe('plain.txt');
    expect(unquotePath('"tab\\there"')).toBe('tab\there');
    expect(unquotePath('"q\\"uote"')).toBe('q"uote');
  });
});

describe('parseBranches', () => {
  it('finds the current branch and skips detached markers', () => {
    const list = parseBranches('* main\n  feature/x\n  remotes/origin/HEAD -> origin/main\n');
    expect(list.current).toBe('main');
    expect(list.branches).toEqual(['main', 'feature/x', 'remotes/origin/HEAD']);
    expect(parseBranches('* (HEAD detached at 1a2b3c)\n  main\n').current).toBeNull();
  });
});

describe('parseLog', () => {
  it('reads the default and the one-line formats', () => {
    const full = parseLog(
      'commit 0123456789abcdef0123456789abcdef01234567\nAuthor: Ada <ada@x>\nDate:   Mon Jan 1\n\n    Add hello\n\n    body\n',
    );
    expect(full).toEqual([
      {
        sha: '0123456789abcdef0123456789abcdef01234567',
        author: 'Ada <ada@x>',
        date: 'Mon Jan 1',
        subject: 'Add hello',
      },
    ]);
    expect(parseLog('abc1234 First\ndef5678 Second\n').map((e) => e.subject)).toEqual(['First', 'Second']);
  });
});
