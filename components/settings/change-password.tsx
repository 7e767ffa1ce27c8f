'use client';

import { useState } from 'react';
import { api, errorMessage } from '../lib/api-client';
import { useToast } from '../ui/feedback';

export function ChangePassword() {
  const toast = useToast();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  return (
    <section className="panel" aria-labelledby="password-heading">
      <div className="panel-head">
        <h2 id="password-heading">Change password</h2>
      </div>
      <form
        className="stack narrow"
        onSubmit={async (event) => {
          event.preventDefault();
          if (next.length < 8) return setError('The new password needs at least 8 characters');
          if (next !== repeat) return setError('The two new passwords differ');
          setBusy(true);
          setError(null);
          try {
            await api.account.changePassword(current, next);
            setCurrent('');
            setNext('');
            setRepeat('');
            toast.success('Password changed');
          } catch (failure) {
            setError(errorMessage(failure));
          }
          setBusy(false);
        }}
      >
        <label className="field">
          <span>Current password</span>
          <input
            type="password"
            autoComplete="current-password"
            value={current}
            onChange={(e) => setCurrent(e.target.value)}
            required
            data-testid="password-current"
          />
        </label>
        <label className="field">
          <span>New password (at least 8 characters)</span>
          <input
            type="password"
            autoComplete="new-password"
            value={next}
            onChange={(e) => setNext(e.target.value)}
            required
            data-testid="password-new"
          />
        </label>
        <label className="field">
          <span>New password again</span>
          <input
            type="password"
            autoComplete="new-password"
            value={repeat}
            onChange={(e) => setRepeat(e.target.value)}
            required
            data-testid="password-repeat"
          />
        </label>
        {error && (
          <p className="form-error" role="alert" data-testid="password-error">
            {error}
          </p>
        )}
        <div>
          <button className="button button-primary" type="submit" disabled={busy} data-testid="password-submit">
            Change password
          </button>
        </div>
      </form>
    </section>
  );
}
