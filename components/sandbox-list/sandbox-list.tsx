'use client';

import Link from 'next/link';
import { useState } from 'react';
import { api, errorMessage } from '../lib/api-client';
import { ageSeconds, formatClock, formatDuration, formatMib } from '../lib/format';
import type { Sandbox } from '../lib/types';
import { useDialogs, useToast } from '../ui/feedback';
import { isTransient, Spinner, StateBadge } from '../ui/misc';

export interface SandboxListProps {
  sandboxes: Sandbox[] | null;
  loadError: string | null;
  /** When the list was fetched (ms), to count time left down between polls. */
  fetchedAt: number;
  now: number;
  onChanged: (sandbox?: Sandbox) => void;
  onRemoved: (id: string) => void;
  onSnapshotCreated: () => void;
}

/** The team's sandboxes with their state, age and time left, and the lifecycle actions. */
export function SandboxList(props: SandboxListProps) {
  const { sandboxes, loadError, fetchedAt, now, onChanged, onRemoved, onSnapshotCreated } = props;
  const toast = useToast();
  const dialogs = useDialogs();
  const [busy, setBusy] = useState<Record<string, string>>({});

  const act = async (sandbox: Sandbox, label: string, action: () => Promise<Sandbox | void>) => {
    setBusy((current) => ({ ...current, [sandbox.id]: label }));
    try {
      const result = await action();
      onChanged(result ?? undefined);
    } catch (error) {
      toast.error(`${label} ${sandbox.id} failed: ${errorMessage(error)}`);
      onChanged();
    } finally {
      setBusy((current) => {
        const next = { ...current };
        delete next[sandbox.id];
        return next;
      });
    }
  };

  const remove = async (sandbox: Sandbox) => {
    const ok = await dialogs.confirm({
      title: `Delete ${sandbox.id}?`,
      message: 'Its container and every file in it are removed. This cannot be undone.',
      confirmLabel: 'Delete sandbox',
      danger: true,
    });
    if (!ok) return;
    await act(sandbox, 'Deleting', async () => {
      await api.sandboxes.remove(sandbox.id);
      onRemoved(sandbox.id);
    });
  };

  const snapshot = async (sandbox: Sandbox) => {
    const name = await dialogs.prompt({
      title: `Snapshot ${sandbox.id}`,
      label: 'Snapshot name (letters, digits, dot, dash, underscore)',
      defaultValue: `${sandbox.id}-snap`,
      confirmLabel: 'Create snapshot',
      validate: (value) =>
        /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(value.trim()) ? null : 'Use letters, digits, dot, dash, underscore',
    });
    if (!name) return;
    await act(sandbox, 'Snapshotting', async () => {
      const created = await api.sandboxes.snapshot(sandbox.id, name);
      toast.success(`Snapshot ${created.name} created; it is in the list above`);
      onSnapshotCreated();
    });
  };

  return (
    <section className="panel" data-testid="sandbox-list" aria-labelledby="sandboxes-heading">
      <div className="panel-head">
        <h2 id="sandboxes-heading">Your sandboxes</h2>
        <button className="link-button" onClick={() => onChanged()}>
          Refresh
        </button>
      </div>
      {loadError && (
        <p className="form-error" role="alert">
          Could not list sandboxes: {loadError}
        </p>
      )}
      {!sandboxes && !loadError && (
        <p className="muted">
          <Spinner /> Loading…
        </p>
      )}
      {sandboxes && sandboxes.length === 0 && (
        <p className="muted empty">No sandboxes yet. Restore a snapshot above to start one.</p>
      )}
      {sandboxes && sandboxes.length > 0 && (
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th>Sandbox</th>
                <th>State</th>
                <th>Resources</th>
                <th>Age</th>
                <th>Time left</th>
                <th aria-label="Actions" />
              </tr>
            </thead>
            <tbody>
              {sandboxes.map((sandbox) => {
                const working = busy[sandbox.id];
                const left =
                  sandbox.expires_in !== undefined
                    ? Math.max(0, sandbox.expires_in - (now - fetchedAt) / 1000)
                    : undefined;
                const disabled = Boolean(working) || isTransient(sandbox.state);
                return (
                  <tr key={sandbox.id} data-testid={`sandbox-row-${sandbox.id}`} data-state={sandbox.state}>
                    <td>
                      <Link href={`/sandbox/${sandbox.id}`} className="mono">
                        {sandbox.id}
                      </Link>
                      <div className="muted small mono">{sandbox.template_id}</div>
                    </td>
                    <td>
                      {working ? (
                        <span className="badge badge-busy">
                          <Spinner /> {working.toLowerCase()}
                        </span>
                      ) : (
                        <StateBadge state={sandbox.state} />
                      )}
                    </td>
                    <td className="small">
                      {sandbox.vcpu} vCPU · {formatMib(sandbox.memory)} · {sandbox.network_policy.mode}
                    </td>
                    <td className="small">{formatDuration(ageSeconds(sandbox.created_at, now))}</td>
                    <td className="small mono" title={sandbox.auto_pause ? 'Pauses when idle' : 'Deleted when idle'}>
                      {left !== undefined ? formatClock(left) : '—'}
                      <span className="muted"> {sandbox.auto_pause ? '→ pause' : '→ delete'}</span>
                    </td>
                    <td>
                      <div className="row-actions">
                        <Link
                          href={`/sandbox/${sandbox.id}`}
                          className={`button button-small ${sandbox.state === 'stopped' ? 'disabled' : ''}`}
                          aria-disabled={sandbox.state === 'stopped'}
                        >
                          Open
                        </Link>
                        {sandbox.state === 'running' && (
                          <button
                            className="button button-small"
                            disabled={disabled}
                            onClick={() => void act(sandbox, 'Pausing', () => api.sandboxes.pause(sandbox.id))}
                          >
                            Pause
                          </button>
                        )}
                        {sandbox.state === 'paused' && (
                          <button
                            className="button button-small"
                            disabled={disabled}
                            onClick={() => void act(sandbox, 'Resuming', () => api.sandboxes.resume(sandbox.id))}
                          >
                            Resume
                          </button>
                        )}
                        {(sandbox.state === 'running' || sandbox.state === 'paused') && (
                          <button
                            className="button button-small"
                            disabled={disabled}
                            onClick={() => void act(sandbox, 'Stopping', () => api.sandboxes.stop(sandbox.id))}
                          >
                            Stop
                          </button>
                        )}
                        {sandbox.state === 'stopped' && (
                          <button
                            className="button button-small"
                            disabled={disabled}
                            onClick={() => void act(sandbox, 'Starting', () => api.sandboxes.start(sandbox.id))}
                          >
                            Start
                          </button>
                        )}
                        <button
                          className="button button-small"
                          disabled={disabled || sandbox.state === 'stopped'}
                          onClick={() => void snapshot(sandbox)}
                        >
                          Snapshot
                        </button>
                        <button
                          className="button button-small button-danger-outline"
                          disabled={Boolean(working)}
                          data-testid={`sandbox-delete-${sandbox.id}`}
                          onClick={() => void remove(sandbox)}
                        >
                          Delete
                        </button>
                      </div>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
