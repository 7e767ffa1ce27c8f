'use client';

import { Icon } from '../ui/icons';
import dynamic from 'next/dynamic';
import { useCallback, useEffect, useRef, useState } from 'react';
import { api, errorMessage } from '../lib/api-client';
import type { PtyStatus } from '../lib/pty-socket';
import { useToast } from '../ui/feedback';
import { takeFreshMark } from './mark-fresh';
import { Spinner } from '../ui/misc';
import type { Theme } from '../ui/theme';

const loadTerminalView = () => import('./terminal-view');

const TerminalView = dynamic(loadTerminalView, {
  ssr: false,
  loading: () => (
    <div className="panel-loading">
      <Spinner /> Loading terminal…
    </div>
  ),
});

interface Tab {
  id: string;
  title: string;
  status: PtyStatus;
}

export interface TerminalPanelHandle {
  newTerminal(): void;
}

/**
 * Terminal tabs of one sandbox. On load it re-attaches to the sandbox's running PTY sessions
 * (so a reload, or a second browser tab, shows the same shells) and opens one when there is none.
 */
export function TerminalPanel({
  sandboxId,
  enabled,
  theme,
  handleRef,
}: {
  sandboxId: string;
  /** False while the sandbox is stopped or gone: nothing is created then. */
  enabled: boolean;
  theme: Theme;
  handleRef?: React.RefObject<TerminalPanelHandle | null>;
}) {
  const toast = useToast();
  const [tabs, setTabs] = useState<Tab[]>([]);
  const [activeId, setActiveId] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const counter = useRef(1);
  const started = useRef(false);

  const create = useCallback(async () => {
    try {
      const session = await api.pty.create(sandboxId, { cols: 120, rows: 30 });
      const title = `bash ${counter.current++}`;
      setTabs((list) => [...list, { id: session.id, title, status: 'connecting' }]);
      setActiveId(session.id);
      setError(null);
    } catch (failure) {
      setError(`Could not open a terminal: ${errorMessage(failure)}`);
    }
  }, [sandboxId]);

  useEffect(() => {
    // xterm.js is fetched while the shell starts, not after.
    void loadTerminalView();
  }, []);

  useEffect(() => {
    if (!enabled || started.current) return;
    started.current = true;
    void (async () => {
      try {
        if (takeFreshMark(sandboxId)) {
          await create();
          setLoading(false);
          return;
        }
        const existing = (await api.pty.list(sandboxId)).items
          .filter((session) => session.active)
          .sort((a, b) => a.created_at.localeCompare(b.created_at));
        if (existing.length > 0) {
          setTabs(
            existing.map((session) => ({ id: session.id, title: `bash ${counter.current++}`, status: 'connecting' })),
          );
          setActiveId(existing[existing.length - 1].id);
        } else await create();
      } catch (failure) {
        setError(`Could not open a terminal: ${errorMessage(failure)}`);
        started.current = false;
      }
      setLoading(false);
    })();
  }, [enabled, sandboxId, create]);

  useEffect(() => {
    if (handleRef) handleRef.current = { newTerminal: () => void create() };
  }, [handleRef, create]);

  const close = async (id: string) => {
    const remaining = tabs.filter((tab) => tab.id !== id);
    setTabs(remaining);
    if (activeId === id) setActiveId(remaining.at(-1)?.id ?? null);
    try {
      await api.pty.remove(sandboxId, id);
    } catch (failure) {
      if ((failure as { status?: number }).status !== 404) toast.error(errorMessage(failure));
    }
  };

  const setStatus = useCallback((id: string, status: PtyStatus) => {
    setTabs((list) => list.map((tab) => (tab.id === id && tab.status !== status ? { ...tab, status } : tab)));
  }, []);

  return (
    <div className="terminal-panel">
      <div className="tabbar" role="tablist" aria-label="Terminals">
        {tabs.map((tab) => (
          <div
            key={tab.id}
            role="tab"
            aria-selected={tab.id === activeId}
            className={`tab ${tab.id === activeId ? 'tab-active' : ''}`}
            onClick={() => setActiveId(tab.id)}
            data-testid={`terminal-tab-${tab.id}`}
          >
            <span className={`dot dot-${tab.status}`} aria-hidden />
            <span>{tab.title}</span>
            {tab.status === 'exited' && <span className="muted small">exited</span>}
            <button
              className="tab-close"
              aria-label={`Close ${tab.title}`}
              title="Close terminal (ends its shell)"
              onClick={(event) => {
                event.stopPropagation();
                void close(tab.id);
              }}
            >
              ×
            </button>
          </div>
        ))}
        <button
          className="icon-button"
          title="New terminal (Ctrl+Shift+`)"
          aria-label="New terminal"
          onClick={() => void create()}
          disabled={!enabled}
          data-testid="terminal-new"
        >
          <Icon name="plus" />
        </button>
      </div>
      <div className="terminal-body">
        {error && (
          <div className="inline-error" role="alert">
            {error}{' '}
            <button className="link-button" onClick={() => void create()}>
              Retry
            </button>
          </div>
        )}
        {loading && enabled && tabs.length === 0 && !error && (
          <div className="panel-loading">
            <Spinner /> Starting a shell…
          </div>
        )}
        {!loading && tabs.length === 0 && !error && (
          <div className="panel-empty">
            <button className="button" onClick={() => void create()} disabled={!enabled}>
              Open a terminal
            </button>
          </div>
        )}
        {tabs.map((tab) => (
          <TerminalView
            key={tab.id}
            sandboxId={sandboxId}
            sessionId={tab.id}
            active={tab.id === activeId}
            theme={theme}
            onStatus={(status) => setStatus(tab.id, status)}
          />
        ))}
      </div>
    </div>
  );
}
