'use client';

import type { SandboxState } from '../lib/types';

export function Spinner({ label }: { label?: string }) {
  return <span className="spinner" role="progressbar" aria-label={label ?? 'Working'} />;
}

const TONE: Record<SandboxState, string> = {
  starting: 'busy',
  running: 'ok',
  paused: 'idle',
  unpausing: 'busy',
  stopping: 'busy',
  stopped: 'idle',
  snapshotting: 'busy',
  deleting: 'busy',
  deleted: 'gone',
};

export function isTransient(state: SandboxState): boolean {
  return TONE[state] === 'busy';
}

export function StateBadge({ state }: { state: SandboxState }) {
  return (
    <span className={`badge badge-${TONE[state]}`} data-state={state}>
      {isTransient(state) && <Spinner label={state} />}
      {state}
    </span>
  );
}

/** A keyboard hint: <Kbd>Ctrl</Kbd>+<Kbd>S</Kbd>. */
export function Kbd({ children }: { children: string }) {
  return <kbd className="kbd">{children}</kbd>;
}
