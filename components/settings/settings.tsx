'use client';

import { AppHeader } from '../ui/app-header';
import { ApiKeys } from './api-keys';
import { ChangePassword } from './change-password';

export function Settings({ email }: { email: string }) {
  return (
    <>
      <AppHeader email={email} />
      <main className="settings">
        <h1>Settings</h1>
        <ApiKeys />
        <ChangePassword />
      </main>
    </>
  );
}
