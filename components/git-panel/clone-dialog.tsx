'use client';

import { useState } from 'react';
import { api, errorMessage } from '../lib/api-client';
import { joinPath } from '../lib/paths';
import { Spinner } from '../ui/misc';

/** "https://host/org/repo.git" → "repo". */
export function repoNameFromUrl(url: string): string {
  const last = url.trim().replace(/\/+$/, '').split(/[/:]/).pop() ?? '';
  return last.replace(/\.git$/, '') || 'repo';
}

/**
 * Clones into the sandbox. The username and password (or token) live only in this dialog's
 * state for the one request: never stored in the browser, and the server never writes them
 * into the URL, git config or logs.
 */
export function CloneDialog({
  sandboxId,
  workspace,
  onClose,
  onCloned,
}: {
  sandboxId: string;
  workspace: string;
  onClose: () => void;
  onCloned: (path: string) => void;
}) {
  const [url, setUrl] = useState('');
  const [path, setPath] = useState('');
  const [branch, setBranch] = useState('');
  const [shallow, setShallow] = useState(false);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const target = path.trim() || (url.trim() ? joinPath(workspace, repoNameFromUrl(url)) : '');

  return (
    <div className="modal-backdrop" onMouseDown={(event) => event.target === event.currentTarget && !busy && onClose()}>
      <form
        className="modal modal-wide"
        role="dialog"
        aria-modal="true"
        aria-label="Clone a repository"
        data-testid="clone-dialog"
        autoComplete="off"
        onKeyDown={(event) => event.key === 'Escape' && !busy && onClose()}
        onSubmit={async (event) => {
          event.preventDefault();
          setBusy(true);
          setError(null);
          try {
            const result = await api.git.clone(sandboxId, {
              url: url.trim(),
              path: target,
              ...(branch.trim() ? { branch: branch.trim() } : {}),
              ...(shallow ? { depth: 1 } : {}),
              ...(username ? { username } : {}),
              ...(password ? { password } : {}),
            });
            setPassword('');
            if (result.exit_code !== 0) {
              setError(result.output.trim() || `git clone failed (exit ${result.exit_code})`);
              setBusy(false);
              return;
            }
            onCloned(target);
          } catch (failure) {
            setPassword('');
            setError(errorMessage(failure));
            setBusy(false);
          }
        }}
      >
        <h2>Clone a repository</h2>
        <label className="field">
          <span>Repository URL (https, ssh or git)</span>
          <input
            autoFocus
            required
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            placeholder="https://github.com/org/repo.git"
            data-testid="clone-url"
            spellCheck={false}
          />
        </label>
        <div className="field-row">
          <label className="field grow">
            <span>Into</span>
            <input
              value={path}
              onChange={(e) => setPath(e.target.value)}
              placeholder={target || `${workspace}/repo`}
              spellCheck={false}
            />
          </label>
          <label className="field">
            <span>Branch</span>
            <input
              value={branch}
              onChange={(e) => setBranch(e.target.value)}
              placeholder="default"
              spellCheck={false}
            />
          </label>
        </div>
        <label className="field field-inline">
          <input type="checkbox" checked={shallow} onChange={(e) => setShallow(e.target.checked)} />
          <span>Shallow (latest commit only)</span>
        </label>
        <fieldset className="fieldset">
          <legend>Private repository (optional; used once, never stored)</legend>
          <div className="field-row">
            <label className="field grow">
              <span>Username</span>
              <input value={username} onChange={(e) => setUsername(e.target.value)} autoComplete="off" />
            </label>
            <label className="field grow">
              <span>Password or token</span>
              <input
                type="password"
                value={password}
                onChange={(e) => setPassword(e.target.value)}
                autoComplete="new-password"
              />
            </label>
          </div>
        </fieldset>
        {error && (
          <pre className="inline-error pre-wrap" role="alert">
            {error}
          </pre>
        )}
        <div className="modal-actions">
          <button type="button" className="button" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button
            type="submit"
            className="button button-primary"
            disabled={busy || !url.trim()}
            data-testid="clone-submit"
          >
            {busy ? (
              <>
                <Spinner /> Cloning…
              </>
            ) : (
              'Clone'
            )}
          </button>
        </div>
      </form>
    </div>
  );
}
