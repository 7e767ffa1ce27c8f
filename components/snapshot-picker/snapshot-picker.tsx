'use client';

import { useCallback, useEffect, useState } from 'react';
import { api, errorMessage, type RestoreOptions } from '../lib/api-client';
import { formatMib } from '../lib/format';
import type { NetworkPolicy, Sandbox, Snapshot } from '../lib/types';
import { useDialogs, useToast } from '../ui/feedback';
import { Spinner } from '../ui/misc';

type Mode = NetworkPolicy['mode'];

const TIMEOUTS: { label: string; seconds: number }[] = [
  { label: '5 minutes', seconds: 300 },
  { label: '15 minutes', seconds: 900 },
  { label: '1 hour', seconds: 3600 },
  { label: '4 hours', seconds: 14400 },
  { label: '8 hours', seconds: 28800 },
];

const SETTINGS_KEY = 'shoal.restore-options';

interface RestoreSettings {
  timeout: number;
  autoPause: boolean;
  mode: Mode;
  domains: string;
  openAfter: boolean;
}

const DEFAULT_SETTINGS: RestoreSettings = {
  timeout: 900,
  autoPause: true,
  mode: 'allow-all',
  domains: '',
  openAfter: true,
};

function loadSettings(): RestoreSettings {
  try {
    const stored = JSON.parse(localStorage.getItem(SETTINGS_KEY) ?? 'null') as Partial<RestoreSettings> | null;
    return { ...DEFAULT_SETTINGS, ...(stored ?? {}) };
  } catch {
    return DEFAULT_SETTINGS;
  }
}

export function restoreBody(snapshot: string, settings: RestoreSettings): RestoreOptions {
  const policy: NetworkPolicy =
    settings.mode === 'custom'
      ? {
          mode: 'custom',
          allow_domains: settings.domains
            .split(/[\s,]+/)
            .map((d) => d.trim())
            .filter(Boolean),
        }
      : { mode: settings.mode };
  return { snapshot_name: snapshot, timeout: settings.timeout, auto_pause: settings.autoPause, network_policy: policy };
}

/**
 * Every snapshot the team can restore, with its resources, and the options a restore takes.
 * `onRestored` receives the new sandbox (state `starting`).
 */
export function SnapshotPicker({
  onRestored,
  version = 0,
}: {
  onRestored: (sandbox: Sandbox, open: boolean) => void;
  /** Changing it reloads the list (a snapshot was just created). */
  version?: number;
}) {
  const toast = useToast();
  const dialogs = useDialogs();
  const [snapshots, setSnapshots] = useState<Snapshot[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [settings, setSettings] = useState<RestoreSettings>(DEFAULT_SETTINGS);
  const [restoring, setRestoring] = useState<string | null>(null);

  const refresh = useCallback(async () => {
    try {
      const list = await api.snapshots.list();
      setSnapshots(list.items);
      setLoadError(null);
    } catch (error) {
      setLoadError(errorMessage(error));
    }
  }, []);

  useEffect(() => {
    // Stored choices are only known in the browser; read them once after hydration.
    queueMicrotask(() => setSettings(loadSettings()));
  }, []);

  useEffect(() => {
    const timer = setTimeout(() => void refresh(), 0);
    return () => clearTimeout(timer);
  }, [refresh, version]);

  const update = (patch: Partial<RestoreSettings>) => {
    setSettings((current) => {
      const next = { ...current, ...patch };
      try {
        localStorage.setItem(SETTINGS_KEY, JSON.stringify(next));
      } catch {
        // not persisted; fine
      }
      return next;
    });
  };

  const restore = async (snapshot: Snapshot) => {
    setRestoring(snapshot.name);
    try {
      const sandbox = await api.snapshots.restore(restoreBody(snapshot.name, settings));
      onRestored(sandbox, settings.openAfter);
      if (!settings.openAfter) setRestoring(null);
    } catch (error) {
      toast.error(`Restore failed: ${errorMessage(error)}`);
      setRestoring(null);
    }
  };

  const remove = async (snapshot: Snapshot) => {
    const ok = await dialogs.confirm({
      title: `Delete snapshot ${snapshot.name}?`,
      message: 'Its image is removed. Sandboxes restored from it must be deleted first.',
      confirmLabel: 'Delete snapshot',
      danger: true,
    });
    if (!ok) return;
    try {
      await api.snapshots.remove(snapshot.id);
      toast.success(`Snapshot ${snapshot.name} deleted`);
      await refresh();
    } catch (error) {
      toast.error(errorMessage(error));
    }
  };

  return (
    <section className="panel" data-testid="snapshot-picker" aria-labelledby="snapshot-heading">
      <div className="panel-head">
        <h2 id="snapshot-heading">Start from a snapshot</h2>
        <button className="link-button" onClick={() => void refresh()}>
          Refresh
        </button>
      </div>
      <div className="restore-options">
        <label className="field field-inline">
          <span>Timeout</span>
          <select
            data-testid="restore-timeout"
            value={settings.timeout}
            onChange={(event) => update({ timeout: Number(event.target.value) })}
          >
            {TIMEOUTS.map((option) => (
              <option key={option.seconds} value={option.seconds}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
        <label
          className="field field-inline"
          title="When idle for the timeout: pause (keeps everything) instead of delete"
        >
          <input
            type="checkbox"
            data-testid="restore-auto-pause"
            checked={settings.autoPause}
            onChange={(event) => update({ autoPause: event.target.checked })}
          />
          <span>Pause when idle (otherwise delete)</span>
        </label>
        <label className="field field-inline">
          <span>Network</span>
          <select
            data-testid="restore-network"
            value={settings.mode}
            onChange={(event) => update({ mode: event.target.value as Mode })}
          >
            <option value="allow-all">Allow all</option>
            <option value="deny-all">No network</option>
            <option value="custom">Only these domains…</option>
          </select>
        </label>
        {settings.mode === 'custom' && (
          <label className="field field-inline grow">
            <span>Domains</span>
            <input
              placeholder="github.com, *.npmjs.org"
              value={settings.domains}
              onChange={(event) => update({ domains: event.target.value })}
            />
          </label>
        )}
        <label className="field field-inline">
          <input
            type="checkbox"
            checked={settings.openAfter}
            onChange={(event) => update({ openAfter: event.target.checked })}
          />
          <span>Open the IDE</span>
        </label>
      </div>
      {loadError && (
        <p className="form-error" role="alert">
          Could not list snapshots: {loadError}
        </p>
      )}
      {!snapshots && !loadError && (
        <p className="muted">
          <Spinner /> Loading snapshots…
        </p>
      )}
      {snapshots && snapshots.length === 0 && <p className="muted">No snapshots yet.</p>}
      {snapshots && snapshots.length > 0 && (
        <ul className="snapshot-grid">
          {snapshots.map((snapshot) => (
            <li key={snapshot.id} className="snapshot-card" data-snapshot={snapshot.name}>
              <div className="snapshot-name">{snapshot.name}</div>
              <div className="muted small mono">{snapshot.template_id}</div>
              <dl className="specs">
                <div>
                  <dt>vCPU</dt>
                  <dd>{snapshot.vcpu}</dd>
                </div>
                <div>
                  <dt>Memory</dt>
                  <dd>{formatMib(snapshot.memory)}</dd>
                </div>
                <div>
                  <dt>Disk</dt>
                  <dd>{formatMib(snapshot.disk)}</dd>
                </div>
              </dl>
              <div className="snapshot-actions">
                <button
                  className="button button-primary"
                  data-testid={`snapshot-${snapshot.name}`}
                  disabled={restoring !== null}
                  onClick={() => void restore(snapshot)}
                >
                  {restoring === snapshot.name ? (
                    <>
                      <Spinner /> Starting…
                    </>
                  ) : (
                    'Restore'
                  )}
                </button>
                {snapshot.name === 'debian-bookworm' ? null : (
                  <button className="link-button danger" onClick={() => void remove(snapshot)}>
                    Delete
                  </button>
                )}
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
