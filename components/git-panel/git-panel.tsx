'use client';

import { Icon } from '../ui/icons';
import { useCallback, useEffect, useRef, useState } from 'react';
import { api, errorMessage } from '../lib/api-client';
import { joinPath } from '../lib/paths';
import type { EditorTab } from '../editor/types';
import { diffTabKey } from '../editor/types';
import { useDialogs, useToast } from '../ui/feedback';
import { Spinner } from '../ui/misc';
import { CloneDialog } from './clone-dialog';
import { parseBranches, parseLog, parseStatus, type ChangedFile, type GitStatus, type LogEntry } from './porcelain';

export interface GitPanelProps {
  sandboxId: string;
  enabled: boolean;
  /** Where repositories are looked for. */
  workspace: string;
  refreshSignal: number;
  onOpenDiff: (tab: Extract<EditorTab, { kind: 'diff' }>) => void;
  /** Files changed on disk (checkout, clone): the tree and editors should reload. */
  onWorkingTreeChanged: () => void;
  onBranch?: (branch: string | null) => void;
}

const AUTHOR_KEY = 'shoal.git-author';

/** Lists repositories: every `.git/HEAD` under the workspace (pruning git internals and node_modules). */
async function detectRepos(sandboxId: string, workspace: string): Promise<string[]> {
  const found = await api.fs.glob(sandboxId, workspace, 'HEAD', ['node_modules', 'objects', 'refs', 'logs', 'hooks']);
  return found.items
    .filter((path) => path.endsWith('/.git/HEAD'))
    .map((path) => path.slice(0, -'/.git/HEAD'.length) || '/')
    .sort();
}

export function GitPanel({
  sandboxId,
  enabled,
  workspace,
  refreshSignal,
  onOpenDiff,
  onWorkingTreeChanged,
  onBranch,
}: GitPanelProps) {
  const toast = useToast();
  const dialogs = useDialogs();
  const storageKey = `shoal.git-repo.${sandboxId}`;
  const [repo, setRepo] = useState<string>('');
  const [repoInput, setRepoInput] = useState('');
  const [candidates, setCandidates] = useState<string[]>([]);
  const [status, setStatus] = useState<GitStatus | null>(null);
  const [statusError, setStatusError] = useState<string | null>(null);
  const [branches, setBranches] = useState<string[]>([]);
  const [log, setLog] = useState<LogEntry[]>([]);
  const [message, setMessage] = useState('');
  const [author, setAuthor] = useState({ name: '', email: '' });
  const [showAuthor, setShowAuthor] = useState(false);
  const [busy, setBusy] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [cloneOpen, setCloneOpen] = useState(false);
  const onBranchRef = useRef(onBranch);

  useEffect(() => {
    onBranchRef.current = onBranch;
  }, [onBranch]);

  useEffect(() => {
    queueMicrotask(() => {
      try {
        const stored = localStorage.getItem(storageKey);
        if (stored) {
          setRepo(stored);
          setRepoInput(stored);
        }
        const savedAuthor = JSON.parse(localStorage.getItem(AUTHOR_KEY) ?? 'null') as typeof author | null;
        if (savedAuthor) setAuthor(savedAuthor);
      } catch {
        // nothing stored
      }
    });
  }, [storageKey]);

  const chooseRepo = useCallback(
    (path: string) => {
      const clean = path.trim().replace(/\/+$/, '') || '/';
      setRepo(clean);
      setRepoInput(clean);
      try {
        localStorage.setItem(storageKey, clean);
      } catch {
        // not persisted
      }
    },
    [storageKey],
  );

  const detect = useCallback(async () => {
    try {
      const repos = await detectRepos(sandboxId, workspace);
      setCandidates(repos);
      return repos;
    } catch (error) {
      toast.error(`Looking for repositories failed: ${errorMessage(error)}`);
      return [];
    }
  }, [sandboxId, workspace, toast]);

  const refresh = useCallback(async () => {
    if (!repo) return;
    setLoading(true);
    try {
      const [statusResult, branchResult, logResult] = await Promise.all([
        api.git.status(sandboxId, repo),
        api.git.branches(sandboxId, repo),
        api.git.log(sandboxId, repo, 10),
      ]);
      if (statusResult.exit_code !== 0) {
        setStatus(null);
        setStatusError(statusResult.output.trim() || `git status failed (exit ${statusResult.exit_code})`);
        onBranchRef.current?.(null);
      } else {
        const parsed = parseStatus(statusResult.output);
        setStatus(parsed);
        setStatusError(null);
        onBranchRef.current?.(parsed.branch);
      }
      setBranches(branchResult.exit_code === 0 ? parseBranches(branchResult.output).branches : []);
      setLog(logResult.exit_code === 0 ? parseLog(logResult.output) : []);
    } catch (error) {
      setStatusError(errorMessage(error));
    } finally {
      setLoading(false);
    }
  }, [sandboxId, repo]);

  useEffect(() => {
    if (!enabled) return;
    const timer = setTimeout(async () => {
      const repos = await detect();
      if (repos.length > 0 && !localStorage.getItem(storageKey)) chooseRepo(repos[0]);
    }, 0);
    return () => clearTimeout(timer);
  }, [enabled, detect, chooseRepo, storageKey]);

  useEffect(() => {
    if (!enabled || !repo) return;
    const timer = setTimeout(() => void refresh(), 0);
    return () => clearTimeout(timer);
  }, [enabled, repo, refresh, refreshSignal]);

  const run = async (label: string, action: () => Promise<{ output: string; exit_code: number } | void>) => {
    setBusy(label);
    try {
      const result = await action();
      if (result && result.exit_code !== 0)
        toast.error(result.output.trim() || `${label} failed (exit ${result.exit_code})`);
      return result;
    } catch (error) {
      toast.error(`${label} failed: ${errorMessage(error)}`);
    } finally {
      setBusy(null);
      await refresh();
    }
  };

  const stage = (files: string[]) => run('Stage', () => api.git.add(sandboxId, repo, files));
  const unstage = (files?: string[]) => run('Unstage', () => api.git.reset(sandboxId, repo, files));

  const commit = async () => {
    if (!message.trim()) {
      toast.error('Write a commit message first');
      return;
    }
    setBusy('Commit');
    try {
      const result = await api.git.commit(sandboxId, repo, message.trim(), author);
      if (result.sha) {
        toast.success(`Committed ${result.sha.slice(0, 7)}`);
        setMessage('');
      } else toast.error(result.result.output.trim() || 'The commit failed');
    } catch (error) {
      toast.error(`Commit failed: ${errorMessage(error)}`);
    } finally {
      setBusy(null);
      await refresh();
    }
  };

  const switchBranch = async (branch: string) => {
    const result = await run('Switch branch', () => api.git.checkoutBranch(sandboxId, repo, branch));
    if (result && result.exit_code === 0) onWorkingTreeChanged();
  };

  const createBranch = async () => {
    const name = await dialogs.prompt({
      title: 'New branch',
      label: `Created from ${status?.branch ?? 'HEAD'} and checked out`,
      confirmLabel: 'Create branch',
      validate: (value) =>
        !value.trim()
          ? 'Enter a name'
          : value.trim().startsWith('-') || /[\s~^:?*[\\]|\.\.|@\{/.test(value.trim())
            ? 'Not a valid branch name'
            : null,
    });
    if (!name) return;
    const result = await run('Create branch', () => api.git.createBranch(sandboxId, repo, name));
    if (result && result.exit_code === 0) toast.success(`On branch ${name}`);
  };

  const openDiff = (file: ChangedFile, staged: boolean, untracked = false) => {
    const path = joinPath(repo, file.path);
    onOpenDiff({ key: diffTabKey(path, staged), kind: 'diff', path, repo, rel: file.path, staged, untracked });
  };

  const fileRow = (file: ChangedFile, group: 'staged' | 'unstaged' | 'untracked') => (
    <li key={`${group}-${file.path}`} className="git-file" data-testid={`git-file-${group}-${file.path}`}>
      <button
        className="git-file-name link-button"
        title={`Show the diff of ${file.path}`}
        data-testid={`git-diff-${group === 'staged' ? 'staged' : 'work'}-${file.path}`}
        onClick={() => openDiff(file, group === 'staged', group === 'untracked')}
      >
        <span className={`git-code code-${file.code === '?' ? 'U' : file.code}`}>
          {file.code === '?' ? 'U' : file.code}
        </span>
        <span className="git-path">{file.path}</span>
        {file.origPath && <span className="muted small"> ← {file.origPath}</span>}
      </button>
      {group === 'staged' ? (
        <button
          className="icon-button"
          title="Unstage"
          aria-label={`Unstage ${file.path}`}
          data-testid={`git-unstage-${file.path}`}
          disabled={busy !== null}
          onClick={() => void unstage([file.path])}
        >
          <Icon name="minus" />
        </button>
      ) : (
        <button
          className="icon-button"
          title="Stage"
          aria-label={`Stage ${file.path}`}
          data-testid={`git-stage-${file.path}`}
          disabled={busy !== null}
          onClick={() => void stage([file.path])}
        >
          <Icon name="plus" />
        </button>
      )}
    </li>
  );

  const staged = status?.staged ?? [];
  const unstaged = status?.unstaged ?? [];
  const untracked = status?.untracked ?? [];

  return (
    <div className="git-panel" data-testid="git-panel">
      <div className="sidebar-head">
        <span className="sidebar-title">Source control</span>
        <div className="sidebar-actions">
          <button
            className="icon-button"
            title="Clone a repository"
            aria-label="Clone a repository"
            onClick={() => setCloneOpen(true)}
            data-testid="git-clone"
            disabled={!enabled}
          >
            <Icon name="clone" />
          </button>
          <button
            className="icon-button"
            title="Refresh (also looks for repositories again)"
            aria-label="Refresh"
            data-testid="git-refresh"
            disabled={!enabled}
            onClick={() => {
              void detect();
              void refresh();
            }}
          >
            <Icon name="refresh" />
          </button>
        </div>
      </div>
      <div className="git-body">
        <label className="field">
          <span className="small muted">Repository</span>
          <input
            data-testid="git-repo-path"
            list={`git-repos-${sandboxId}`}
            value={repoInput}
            placeholder={`${workspace}/my-repo`}
            spellCheck={false}
            onChange={(event) => {
              setRepoInput(event.target.value);
              if (candidates.includes(event.target.value)) chooseRepo(event.target.value);
            }}
            onKeyDown={(event) => {
              if (event.key === 'Enter') chooseRepo(repoInput);
            }}
            onBlur={() => repoInput.trim() && repoInput !== repo && chooseRepo(repoInput)}
          />
          <datalist id={`git-repos-${sandboxId}`}>
            {candidates.map((path) => (
              <option key={path} value={path} />
            ))}
          </datalist>
        </label>
        {!repo && (
          <p className="muted small">
            {candidates.length === 0
              ? `No repository under ${workspace} yet. Clone one, or run git init in the terminal and press ⟳.`
              : 'Choose a repository.'}
          </p>
        )}
        {loading && !status && (
          <p className="muted">
            <Spinner /> Reading status…
          </p>
        )}
        {statusError && (
          <div className="inline-error" role="alert" data-testid="git-error">
            {statusError}
          </div>
        )}
        {status && (
          <>
            <div className="git-branch-row">
              <select
                aria-label="Branch"
                data-testid="git-branch-select"
                value={status.branch ?? ''}
                disabled={busy !== null}
                onChange={(event) => void switchBranch(event.target.value)}
              >
                {status.detached && <option value="">(detached)</option>}
                {[...new Set([...(status.branch ? [status.branch] : []), ...branches])].map((branch) => (
                  <option key={branch} value={branch}>
                    {branch}
                  </option>
                ))}
              </select>
              <button
                className="icon-button"
                title="New branch"
                aria-label="New branch"
                onClick={() => void createBranch()}
              >
                <Icon name="branch" />
              </button>
              {status.upstream && (
                <span className="muted small" title={`Tracking ${status.upstream}`} data-testid="git-ahead-behind">
                  ↑{status.ahead} ↓{status.behind}
                </span>
              )}
              {loading && <Spinner />}
            </div>
            <div className="git-commit-box">
              <textarea
                data-testid="git-commit-message"
                placeholder="Commit message (Ctrl+Enter to commit)"
                value={message}
                rows={3}
                onChange={(event) => setMessage(event.target.value)}
                onKeyDown={(event) => {
                  if ((event.ctrlKey || event.metaKey) && event.key === 'Enter') {
                    event.preventDefault();
                    void commit();
                  }
                }}
              />
              <div className="git-commit-actions">
                <button
                  className="button button-primary"
                  data-testid="git-commit"
                  disabled={busy !== null || staged.length === 0 || !message.trim()}
                  onClick={() => void commit()}
                  title={staged.length === 0 ? 'Stage some changes first' : 'Commit the staged changes'}
                >
                  {busy === 'Commit' ? 'Committing…' : `Commit${staged.length ? ` (${staged.length})` : ''}`}
                </button>
                <button className="link-button small" onClick={() => setShowAuthor((v) => !v)}>
                  {showAuthor ? 'Hide author' : 'Author…'}
                </button>
              </div>
              {showAuthor && (
                <div className="git-author">
                  <input
                    placeholder="Author name (default: Shoal User)"
                    value={author.name}
                    onChange={(event) => {
                      const next = { ...author, name: event.target.value };
                      setAuthor(next);
                      localStorage.setItem(AUTHOR_KEY, JSON.stringify(next));
                    }}
                  />
                  <input
                    placeholder="Author email"
                    value={author.email}
                    onChange={(event) => {
                      const next = { ...author, email: event.target.value };
                      setAuthor(next);
                      localStorage.setItem(AUTHOR_KEY, JSON.stringify(next));
                    }}
                  />
                </div>
              )}
            </div>
            <GitGroup
              title="Staged"
              count={staged.length}
              action={
                staged.length > 0 && (
                  <button className="link-button small" onClick={() => void unstage()} data-testid="git-unstage-all">
                    Unstage all
                  </button>
                )
              }
            >
              {staged.map((file) => fileRow(file, 'staged'))}
            </GitGroup>
            <GitGroup
              title="Changes"
              count={unstaged.length}
              action={
                unstaged.length > 0 && (
                  <button
                    className="link-button small"
                    onClick={() => void stage(unstaged.map((f) => f.path))}
                    data-testid="git-stage-all-changes"
                  >
                    Stage all
                  </button>
                )
              }
            >
              {unstaged.map((file) => fileRow(file, 'unstaged'))}
            </GitGroup>
            <GitGroup
              title="Untracked"
              count={untracked.length}
              action={
                untracked.length > 0 && (
                  <button
                    className="link-button small"
                    onClick={() => void stage(untracked.map((f) => f.path))}
                    data-testid="git-stage-all-untracked"
                  >
                    Stage all
                  </button>
                )
              }
            >
              {untracked.map((file) => fileRow(file, 'untracked'))}
            </GitGroup>
            {status.conflicted.length > 0 && (
              <GitGroup title="Conflicts" count={status.conflicted.length}>
                {status.conflicted.map((file) => fileRow(file, 'unstaged'))}
              </GitGroup>
            )}
            {staged.length + unstaged.length + untracked.length === 0 && (
              <p className="muted small">Nothing to commit, working tree clean.</p>
            )}
            {log.length > 0 && (
              <details className="git-log" open>
                <summary>Recent commits</summary>
                <ul data-testid="git-log">
                  {log.map((entry) => (
                    <li key={entry.sha} title={`${entry.author} · ${entry.date}`}>
                      <code>{entry.sha.slice(0, 7)}</code> {entry.subject}
                    </li>
                  ))}
                </ul>
              </details>
            )}
          </>
        )}
      </div>
      {cloneOpen && (
        <CloneDialog
          sandboxId={sandboxId}
          workspace={workspace}
          onClose={() => setCloneOpen(false)}
          onCloned={async (path) => {
            setCloneOpen(false);
            await detect();
            chooseRepo(path);
            onWorkingTreeChanged();
          }}
        />
      )}
    </div>
  );
}

/** Rows shown per group; a huge untracked tree stays responsive. */
const GROUP_LIMIT = 200;

function GitGroup({
  title,
  count,
  action,
  children,
}: {
  title: string;
  count: number;
  action?: React.ReactNode;
  children: React.ReactNode;
}) {
  if (count === 0) return null;
  return (
    <section className="git-group">
      <div className="git-group-head">
        <span>
          {title} <span className="count">{count}</span>
        </span>
        {action}
      </div>
      <ul>{Array.isArray(children) ? children.slice(0, GROUP_LIMIT) : children}</ul>
      {count > GROUP_LIMIT && (
        <p className="muted small">…and {count - GROUP_LIMIT} more (stage all to include them)</p>
      )}
    </section>
  );
}
