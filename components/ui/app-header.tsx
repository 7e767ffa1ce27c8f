'use client';

import Link from 'next/link';
import { signOut } from '../lib/api-client';
import { ThemeToggle } from './theme';

/** The bar on top of the dashboard and settings pages. */
export function AppHeader({ email, children }: { email: string; children?: React.ReactNode }) {
  return (
    <header className="app-header">
      <Link href="/" className="brand">
        <span className="brand-mark" aria-hidden>
          ◆
        </span>
        Shoal
      </Link>
      <div className="app-header-middle">{children}</div>
      <nav className="app-header-nav">
        <Link href="/settings" className="link-button">
          Settings
        </Link>
        <ThemeToggle />
        <span className="muted user-email" title="Signed in">
          {email}
        </span>
        <button
          className="link-button"
          data-testid="sign-out"
          onClick={async () => {
            await signOut().catch(() => undefined);
            window.location.replace('/login');
          }}
        >
          Sign out
        </button>
      </nav>
    </header>
  );
}
