/** What the IDE asks the editor area to show in one tab. */
export type EditorTab =
  | { key: string; kind: 'file'; path: string }
  | {
      key: string;
      kind: 'diff';
      /** Absolute path of the file in the sandbox. */
      path: string;
      repo: string;
      /** Path relative to the repository root (as git status reports it). */
      rel: string;
      /** Staged: HEAD ↔ index. Otherwise index (or nothing, untracked) ↔ working tree. */
      staged: boolean;
      untracked: boolean;
    };

export interface CursorInfo {
  line: number;
  column: number;
  language: string;
}

export function fileTabKey(path: string): string {
  return `file:${path}`;
}

export function diffTabKey(path: string, staged: boolean): string {
  return `diff:${staged ? 'staged' : 'work'}:${path}`;
}
