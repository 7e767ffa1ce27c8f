'use client';

import { useCallback, useEffect, useState } from 'react';
import { api, errorMessage } from '../lib/api-client';
import type { ApiKey, CreatedApiKey } from '../lib/types';
import { useDialogs, useToast } from '../ui/feedback';
import { Spinner } from '../ui/misc';

/** API keys of the team: create (the key is shown once), copy, revoke. */
export function ApiKeys() {
  const toast = useToast();
  const dialogs = useDialogs();
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [busy, setBusy] = useState(false);

  const refresh = useCallback(async () => {
    try {
      setKeys((await api.apiKeys.list()).items);
      setLoadError(null);
    } catch (error) {
      setLoadError(errorMessage(error));
    }
  }, []);

  useEffect(() => {
    const timer = setTimeout(() => void refresh(), 0);
    return () => clearTimeout(timer);
  }, [refresh]);

  const create = async () => {
    setBusy(true);
    try {
      const key = await api.apiKeys.create(name.trim());
      setCreated(key);
      setName('');
      await refresh();
    } catch (error) {
      toast.error(errorMessage(error));
    }
    setBusy(false);
  };

  const revoke = async (key: ApiKey) => {
    const ok = await dialogs.confirm({
      title: `Revoke “${key.name}”?`,
      message: 'Programs using this key are refused at once. This cannot be undone.',
      confirmLabel: 'Revoke key',
      danger: true,
    });
    if (!ok) return;
    try {
      await api.apiKeys.revoke(key.id);
      if (created?.id === key.id) setCreated(null);
      toast.success(`Key “${key.name}” revoked`);
      await refresh();
    } catch (error) {
      toast.error(errorMessage(error));
    }
  };

  const copy = async (value: string) => {
    try {
      await navigator.clipboard.writeText(value);
      toast.success('Copied to the clipboard');
    } catch {
      toast.error('The browser refused the clipboard; select the key and copy it by hand');
    }
  };

  return (
    <section className="panel" data-testid="api-keys" aria-labelledby="keys-heading">
      <div className="panel-head">
        <h2 id="keys-heading">API keys</h2>
      </div>
      <p className="muted small">
        Send a key as <code>Authorization: Bearer sk_…</code>. Keys belong to the team and are stored only as a hash.
      </p>
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (name.trim()) void create();
        }}
      >
        <input
          data-testid="api-key-name"
          placeholder="Key name, e.g. laptop"
          value={name}
          maxLength={64}
          onChange={(event) => setName(event.target.value)}
        />
        <button
          className="button button-primary"
          type="submit"
          disabled={busy || !name.trim()}
          data-testid="api-key-create"
        >
          Create key
        </button>
      </form>
      {created && (
        <div className="callout" data-testid="api-key-created">
          <p>
            <strong>{created.name}</strong>: copy this key now. It will not be shown again.
          </p>
          <div className="secret-row">
            <code className="secret" data-testid="api-key-created-value">
              {created.key}
            </code>
            <button className="button" onClick={() => void copy(created.key)} data-testid="api-key-copy">
              Copy
            </button>
            <button className="link-button" onClick={() => setCreated(null)}>
              Done
            </button>
          </div>
        </div>
      )}
      {loadError && (
        <p className="form-error" role="alert">
          {loadError}
        </p>
      )}
      {!keys && !loadError && <Spinner />}
      {keys && (
        <table className="table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Key</th>
              <th>Created</th>
              <th>Status</th>
              <th aria-label="Actions" />
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => (
              <tr key={key.id} data-testid={`api-key-row-${key.name}`}>
                <td>{key.name}</td>
                <td className="mono small">{key.prefix}…</td>
                <td className="small">{new Date(key.created_at).toLocaleString()}</td>
                <td className="small">
                  {key.revoked_at ? (
                    <span className="badge badge-gone">revoked</span>
                  ) : (
                    <span className="badge badge-ok">active</span>
                  )}
                </td>
                <td>
                  {!key.revoked_at && (
                    <button
                      className="button button-small button-danger-outline"
                      data-testid={`api-key-revoke-${key.name}`}
                      onClick={() => void revoke(key)}
                    >
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
