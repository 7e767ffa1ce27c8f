'use client';

import { useState, useSyncExternalStore } from 'react';
import { errorMessage, signIn } from '../lib/api-client';

const noSubscription = () => () => undefined;

/** false in the server render and until hydration, true once React handles the form. */
function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}

export function LoginForm({ next }: { next: string }) {
  const hydrated = useHydrated();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  return (
    // Until hydration the submit button is disabled, so the browser never submits the form
    // natively; method="post" keeps a password out of any URL all the same.
    <form
      className="card login-card"
      method="post"
      onSubmit={async (event) => {
        event.preventDefault();
        // Read from the form: text typed before hydration is in the inputs, not in React state.
        const fields = new FormData(event.currentTarget);
        const email = String(fields.get('email') ?? '');
        const password = String(fields.get('password') ?? '');
        setBusy(true);
        setError(null);
        try {
          if (await signIn(email.trim(), password)) {
            window.location.assign(next);
            return;
          }
          setError('Wrong email or password');
        } catch (failure) {
          setError(errorMessage(failure));
        }
        setBusy(false);
      }}
    >
      <h1 className="login-title">
        <span className="brand-mark" aria-hidden>
          ◆
        </span>{' '}
        Shoal
      </h1>
      <p className="muted">Sign in to your sandboxes.</p>
      <label className="field">
        <span>Email</span>
        <input data-testid="login-email" type="email" name="email" autoComplete="username" required autoFocus />
      </label>
      <label className="field">
        <span>Password</span>
        <input data-testid="login-password" type="password" name="password" autoComplete="current-password" required />
      </label>
      {error && (
        <p className="form-error" role="alert" data-testid="login-error">
          {error}
        </p>
      )}
      <button
        className="button button-primary button-wide"
        type="submit"
        disabled={busy || !hydrated}
        data-testid="login-submit"
      >
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
      <p className="muted small">
        The admin login is printed when Shoal starts for the first time (or set with SHOAL_ADMIN_PASSWORD).
      </p>
    </form>
  );
}
