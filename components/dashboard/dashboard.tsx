'use client';

import { useRouter } from 'next/navigation';
import { useCallback, useEffect, useState } from 'react';
import { api, errorMessage } from '../lib/api-client';
import type { Sandbox } from '../lib/types';
import { SandboxList } from '../sandbox-list/sandbox-list';
import { SnapshotPicker } from '../snapshot-picker/snapshot-picker';
import { markFreshSandbox } from '../terminal/mark-fresh';
import { AppHeader } from '../ui/app-header';
import { isTransient } from '../ui/misc';
import { usePolling } from '../lib/use-polling';

/** Polls faster while a sandbox is between states, so progress shows without a reload. */
const POLL_MS = 5000;
const POLL_BUSY_MS = 1000;

export function Dashboard({ email }: { email: string }) {
  const router = useRouter();
  const [sandboxes, setSandboxes] = useState<Sandbox[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [fetchedAt, setFetchedAt] = useState(0);
  const [now, setNow] = useState(0);
  const [snapshotsVersion, setSnapshotsVersion] = useState(0);

  const refresh = useCallback(async () => {
    try {
      const list = await api.sandboxes.list();
      setSandboxes(list.items.filter((s) => s.state !== 'deleted'));
      setFetchedAt(Date.now());
      setLoadError(null);
    } catch (error) {
      setLoadError(errorMessage(error));
    }
  }, []);

  const busy = sandboxes?.some((s) => isTransient(s.state)) ?? false;

  usePolling(refresh, busy ? POLL_BUSY_MS : POLL_MS);

  useEffect(() => {
    const tick = () => setNow(Date.now());
    const timer = setInterval(tick, 1000);
    queueMicrotask(tick);
    return () => clearInterval(timer);
  }, []);

  return (
    <>
      <AppHeader email={email} />
      <main className="dashboard">
        <SnapshotPicker
          version={snapshotsVersion}
          onRestored={(sandbox, open) => {
            setSandboxes((list) => [sandbox, ...(list ?? []).filter((s) => s.id !== sandbox.id)]);
            setFetchedAt(Date.now());
            if (open) {
              markFreshSandbox(sandbox.id);
              router.push(`/sandbox/${sandbox.id}`);
            }
          }}
        />
        <SandboxList
          sandboxes={sandboxes}
          loadError={loadError}
          fetchedAt={fetchedAt}
          now={now}
          onChanged={(updated) => {
            if (updated) setSandboxes((list) => (list ?? []).map((s) => (s.id === updated.id ? updated : s)));
            void refresh();
          }}
          onRemoved={(id) => setSandboxes((list) => (list ?? []).filter((s) => s.id !== id))}
          onSnapshotCreated={() => setSnapshotsVersion((v) => v + 1)}
        />
        <p className="muted small shortcuts-hint">
          API: <a href="/v1/openapi.json">/v1/openapi.json</a> · keys in <a href="/settings">Settings</a>
        </p>
      </main>
    </>
  );
}
