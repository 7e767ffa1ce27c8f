'use client';

import { useState } from 'react';
import { errorMessage, signIn } from '../lib/api-client';

export function LoginForm({ next }: { next: string }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  return (
    <form
      className="card login-card"
      onSubmit={async (event) => {
        event.preventDefault();
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
        <input
          data-testid="login-email"
          type="email"
          autoComplete="username"
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          required
          autoFocus
        />
      </label>
      <label className="field">
        <span>Password</span>
        <input
          data-testid="login-password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(event) => setPassword(event.target.value)}
          required
        />
      </label>
      {error && (
        <p className="form-error" role="alert" data-testid="login-error">
          {error}
        </p>
      )}
      <button className="button button-primary button-wide" type="submit" disabled={busy} data-testid="login-submit">
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
      <p className="muted small">
        The admin login is printed when Shoal starts for the first time (or set with SHOAL_ADMIN_PASSWORD).
      </p>
    </form>
  );
}
