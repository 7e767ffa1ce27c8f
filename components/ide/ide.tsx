'use client';

import { Icon } from '../ui/icons';
import dynamic from 'next/dynamic';
import Link from 'next/link';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { CursorInfo, EditorTab } from '../editor/types';
import { fileTabKey } from '../editor/types';
import { FileTree } from '../file-tree/file-tree';
import { GitPanel } from '../git-panel/git-panel';
import { api, errorMessage } from '../lib/api-client';
import { formatClock } from '../lib/format';
import { basename } from '../lib/paths';
import type { Sandbox } from '../lib/types';
import { TerminalPanel, type TerminalPanelHandle } from '../terminal/terminal-panel';
import { useDialogs, useToast } from '../ui/feedback';
import { isTransient, Spinner, StateBadge } from '../ui/misc';
import { ThemeToggle, useTheme } from '../ui/theme';
import { usePolling } from '../lib/use-polling';
import { Splitter, useSplit } from './use-split';

// Monaco (several MB) is fetched only when the IDE shows its editor, never by the dashboard.
const EditorArea = dynamic(() => import('../editor/editor-area'), {
  ssr: false,
  loading: () => (
    <div className="panel-loading">
      <Spinner /> Loading the editor…
    </div>
  ),
});

/** A GET every 30 s is activity: the sandbox does not time out while its IDE is open. */
const KEEPALIVE_MS = 30_000;
const WORKSPACE = '/workspace';

type View = 'files' | 'git';

const maxSidebar = () => Math.max(200, Math.floor(window.innerWidth * 0.5));
const maxTerminal = () => Math.max(120, Math.floor(window.innerHeight * 0.8));

export function Ide({ sandboxId }: { sandboxId: string }) {
  const toast = useToast();
  const dialogs = useDialogs();
  const theme = useTheme();
  const [sandbox, setSandbox] = useState<Sandbox | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [fetchedAt, setFetchedAt] = useState(0);
  const [now, setNow] = useState(0);
  const [view, setView] = useState<View>('files');
  const [gitMounted, setGitMounted] = useState(false);
  const [sidebarOpen, setSidebarOpen] = useState(true);
  const [terminalOpen, setTerminalOpen] = useState(true);
  const [tabs, setTabs] = useState<EditorTab[]>([]);
  const [activeKey, setActiveKey] = useState<string | null>(null);
  const [dirty, setDirty] = useState<Record<string, boolean>>({});
  const [cursor, setCursor] = useState<CursorInfo | null>(null);
  const [branch, setBranch] = useState<string | null>(null);
  const [treeRoot, setTreeRoot] = useState(WORKSPACE);
  const [treeSignal, setTreeSignal] = useState(0);
  const [gitSignal, setGitSignal] = useState(0);
  const [acting, setActing] = useState<string | null>(null);
  const terminalHandle = useRef<TerminalPanelHandle | null>(null);
  const sidebar = useSplit('shoal.layout.sidebar', 280, 160, maxSidebar, 'x');
  const terminal = useSplit('shoal.layout.terminal', 280, 80, maxTerminal, 'y');
  const tabsStorageKey = `shoal.tabs.${sandboxId}`;

  // ---- the sandbox: state, keep-alive, countdown ----------------------------------------------

  const fetchSandbox = useCallback(async () => {
    try {
      const current = await api.sandboxes.get(sandboxId);
      setSandbox(current);
      setFetchedAt(Date.now());
      setLoadError(null);
      return current;
    } catch (error) {
      setLoadError(errorMessage(error));
      return null;
    }
  }, [sandboxId]);

  const state = sandbox?.state;
  const busy = state !== undefined && isTransient(state);
  // Fast while it changes state; every few seconds while paused or stopped (a terminal may
  // resume it); otherwise the keep-alive pace.
  usePolling(fetchSandbox, busy ? 300 : state === 'running' ? KEEPALIVE_MS : 5000);

  useEffect(() => {
    const onVisible = () => document.visibilityState === 'visible' && void fetchSandbox();
    document.addEventListener('visibilitychange', onVisible);
    return () => document.removeEventListener('visibilitychange', onVisible);
  }, [fetchSandbox]);

  useEffect(() => {
    const tick = () => setNow(Date.now());
    const timer = setInterval(tick, 1000);
    queueMicrotask(tick);
    return () => clearInterval(timer);
  }, []);

  const enabled = sandbox !== null && !['stopped', 'stopping', 'deleting', 'deleted'].includes(sandbox.state);
  const timeLeft =
    sandbox?.expires_in !== undefined && fetchedAt > 0
      ? Math.max(0, sandbox.expires_in - (now - fetchedAt) / 1000)
      : undefined;

  // ---- editor tabs (kept across reloads in sessionStorage) ------------------------------------

  useEffect(() => {
    queueMicrotask(() => {
      try {
        const stored = JSON.parse(sessionStorage.getItem(tabsStorageKey) ?? 'null') as {
          tabs: EditorTab[];
          active: string | null;
          root?: string;
        } | null;
        if (stored?.tabs) {
          setTabs(stored.tabs.filter((tab) => tab.kind === 'file'));
          setActiveKey(stored.active);
        }
        if (stored?.root) setTreeRoot(stored.root);
      } catch {
        // nothing stored
      }
    });
  }, [tabsStorageKey]);

  useEffect(() => {
    try {
      sessionStorage.setItem(tabsStorageKey, JSON.stringify({ tabs, active: activeKey, root: treeRoot }));
    } catch {
      // not persisted
    }
  }, [tabs, activeKey, treeRoot, tabsStorageKey]);

  const openTab = useCallback((tab: EditorTab) => {
    setTabs((list) => (list.some((t) => t.key === tab.key) ? list : [...list, tab]));
    setActiveKey(tab.key);
  }, []);

  const openFile = useCallback((path: string) => openTab({ key: fileTabKey(path), kind: 'file', path }), [openTab]);

  const closeTab = useCallback(
    async (key: string) => {
      if (dirty[key]) {
        const tab = tabs.find((t) => t.key === key);
        const ok = await dialogs.confirm({
          title: `Close ${tab ? basename(tab.path) : 'tab'} without saving?`,
          message: 'Your unsaved changes are lost.',
          confirmLabel: 'Discard changes',
          danger: true,
        });
        if (!ok) return;
      }
      setTabs((list) => {
        const index = list.findIndex((t) => t.key === key);
        const next = list.filter((t) => t.key !== key);
        setActiveKey((current) => (current === key ? (next[Math.max(0, index - 1)]?.key ?? null) : current));
        return next;
      });
      setDirty((map) => {
        const next = { ...map };
        delete next[key];
        return next;
      });
    },
    [dirty, tabs, dialogs],
  );

  const onMoved = useCallback((from: string, to: string | null) => {
    const affected = (path: string) => path === from || path.startsWith(`${from}/`);
    setTabs((list) =>
      list.flatMap((tab): EditorTab[] => {
        if (!affected(tab.path)) return [tab];
        if (to === null || tab.kind === 'diff') return [];
        const path = to + tab.path.slice(from.length);
        return [{ key: fileTabKey(path), kind: 'file', path }];
      }),
    );
    setActiveKey((current) => {
      if (!current?.startsWith('file:') || !affected(current.slice(5))) return current;
      return to === null ? null : fileTabKey(to + current.slice(5 + from.length));
    });
    setGitSignal((n) => n + 1);
  }, []);

  const anyDirty = useMemo(() => Object.values(dirty).some(Boolean), [dirty]);
  useEffect(() => {
    if (!anyDirty) return;
    const warn = (event: BeforeUnloadEvent) => {
      event.preventDefault();
    };
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [anyDirty]);

  // ---- keyboard shortcuts ---------------------------------------------------------------------

  const showView = useCallback((next: View) => {
    setView(next);
    setSidebarOpen(true);
    if (next === 'git') setGitMounted(true);
  }, []);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const mod = event.ctrlKey || event.metaKey;
      const key = event.key.toLowerCase();
      if (mod && event.shiftKey && key === 'e') {
        event.preventDefault();
        showView('files');
      } else if (mod && event.shiftKey && key === 'g') {
        event.preventDefault();
        showView('git');
      } else if (mod && !event.shiftKey && key === 'b') {
        event.preventDefault();
        setSidebarOpen((open) => !open);
      } else if (event.ctrlKey && (event.code === 'Backquote' || key === '`')) {
        event.preventDefault();
        if (event.shiftKey) {
          setTerminalOpen(true);
          terminalHandle.current?.newTerminal();
        } else setTerminalOpen((open) => !open);
      } else if (event.altKey && !mod && key === 'w') {
        event.preventDefault();
        if (activeKey) void closeTab(activeKey);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [activeKey, closeTab, showView]);

  // ---- sandbox actions --------------------------------------------------------------------------

  const act = async (label: string, action: () => Promise<Sandbox>) => {
    setActing(label);
    try {
      setSandbox(await action());
      setFetchedAt(Date.now());
    } catch (error) {
      toast.error(`${label} failed: ${errorMessage(error)}`);
    } finally {
      setActing(null);
      void fetchSandbox();
    }
  };

  const onSaved = useCallback(() => {
    setTreeSignal((n) => n + 1);
    setGitSignal((n) => n + 1);
  }, []);
  const onDirty = useCallback(
    (key: string, value: boolean) => setDirty((map) => (Boolean(map[key]) === value ? map : { ...map, [key]: value })),
    [],
  );
  const onWorkingTreeChanged = useCallback(() => setTreeSignal((n) => n + 1), []);

  if (loadError && !sandbox) {
    return (
      <div className="ide-fatal" role="alert">
        <h1>Cannot open {sandboxId}</h1>
        <p>{loadError}</p>
        <Link href="/" className="button">
          Back to the dashboard
        </Link>
      </div>
    );
  }

  return (
    <div className="ide" data-sandbox={sandboxId} data-state={sandbox?.state ?? 'loading'}>
      <header className="ide-header">
        <Link href="/" className="brand" title="Dashboard">
          <span className="brand-mark" aria-hidden>
            ◆
          </span>
          Shoal
        </Link>
        <span className="mono ide-title">{sandboxId}</span>
        {sandbox && <StateBadge state={sandbox.state} />}
        <div className="ide-header-actions">
          {sandbox?.state === 'running' && (
            <button
              className="button button-small"
              disabled={acting !== null}
              onClick={() => void act('Pause', () => api.sandboxes.pause(sandboxId))}
            >
              Pause
            </button>
          )}
          {(sandbox?.state === 'running' || sandbox?.state === 'paused') && (
            <button
              className="button button-small"
              disabled={acting !== null}
              onClick={() => void act('Stop', () => api.sandboxes.stop(sandboxId))}
            >
              Stop
            </button>
          )}
          <Link href="/settings" className="link-button">
            Settings
          </Link>
          <ThemeToggle />
        </div>
      </header>

      <div className="ide-main">
        <nav className="activity-bar" aria-label="Views">
          <button
            className={`activity ${view === 'files' && sidebarOpen ? 'active' : ''}`}
            title="Files (Ctrl+Shift+E)"
            aria-label="Files"
            data-testid="file-tree-open"
            onClick={() => (view === 'files' && sidebarOpen ? setSidebarOpen(false) : showView('files'))}
          >
            <Icon name="files" />
          </button>
          <button
            className={`activity ${view === 'git' && sidebarOpen ? 'active' : ''}`}
            title="Source control (Ctrl+Shift+G)"
            aria-label="Source control"
            data-testid="git-panel-open"
            onClick={() => (view === 'git' && sidebarOpen ? setSidebarOpen(false) : showView('git'))}
          >
            <Icon name="branch" />
          </button>
          <button
            className={`activity ${terminalOpen ? 'active' : ''}`}
            title="Terminal (Ctrl+`)"
            aria-label="Terminal"
            onClick={() => setTerminalOpen((open) => !open)}
          >
            <Icon name="terminal" />
          </button>
        </nav>

        <aside className="sidebar" style={{ width: sidebar.size, display: sidebarOpen ? 'flex' : 'none' }}>
          <div className="sidebar-view" style={{ display: view === 'files' ? 'flex' : 'none' }}>
            <FileTree
              sandboxId={sandboxId}
              root={treeRoot}
              enabled={enabled}
              refreshSignal={treeSignal}
              onOpenFile={openFile}
              onRootChange={setTreeRoot}
              onMoved={onMoved}
            />
          </div>
          {gitMounted && (
            <div className="sidebar-view" style={{ display: view === 'git' ? 'flex' : 'none' }}>
              <GitPanel
                sandboxId={sandboxId}
                enabled={enabled}
                workspace={WORKSPACE}
                refreshSignal={gitSignal}
                onOpenDiff={openTab}
                onWorkingTreeChanged={onWorkingTreeChanged}
                onBranch={setBranch}
              />
            </div>
          )}
        </aside>
        {sidebarOpen && <Splitter split={sidebar} axis="x" label="Resize the side bar" />}

        <section className="workbench">
          <div className="editor-pane">
            <div className="tabbar" role="tablist" aria-label="Open files">
              {tabs.map((tab) => (
                <div
                  key={tab.key}
                  role="tab"
                  aria-selected={tab.key === activeKey}
                  className={`tab ${tab.key === activeKey ? 'tab-active' : ''} ${dirty[tab.key] ? 'tab-dirty' : ''}`}
                  title={tab.path}
                  data-testid={`editor-tab-${basename(tab.path)}`}
                  data-dirty={dirty[tab.key] ? 'true' : 'false'}
                  onClick={() => setActiveKey(tab.key)}
                  onAuxClick={(event) => event.button === 1 && void closeTab(tab.key)}
                >
                  <span className="tab-name">
                    {tab.kind === 'diff' && <span className="muted">Δ </span>}
                    {basename(tab.path)}
                  </span>
                  <span className="tab-dirty-dot" aria-label={dirty[tab.key] ? 'unsaved changes' : undefined}>
                    ●
                  </span>
                  <button
                    className="tab-close"
                    aria-label={`Close ${basename(tab.path)}`}
                    title="Close (Alt+W)"
                    onClick={(event) => {
                      event.stopPropagation();
                      void closeTab(tab.key);
                    }}
                  >
                    ×
                  </button>
                </div>
              ))}
            </div>
            <div className="editor-body">
              <EditorArea
                sandboxId={sandboxId}
                tabs={tabs}
                activeKey={activeKey}
                theme={theme}
                onDirty={onDirty}
                onSaved={onSaved}
                onCursor={setCursor}
              />
            </div>
          </div>
          {terminalOpen && <Splitter split={terminal} axis="y" label="Resize the terminal" />}
          <div className="terminal-pane" style={{ height: terminal.size, display: terminalOpen ? 'flex' : 'none' }}>
            {/* Remounted when the sandbox comes back from stopped: its old shells are gone. */}
            <TerminalPanel
              key={enabled ? 'on' : 'off'}
              sandboxId={sandboxId}
              enabled={enabled}
              theme={theme}
              handleRef={terminalHandle}
            />
          </div>
        </section>

        {sandbox && sandbox.state !== 'running' && (
          <StateOverlay
            sandbox={sandbox}
            acting={acting}
            onResume={() => void act('Resume', () => api.sandboxes.resume(sandboxId))}
            onStart={() => void act('Start', () => api.sandboxes.start(sandboxId))}
          />
        )}
      </div>

      <footer className="status-bar" data-testid="status-bar">
        <span className={`status-state state-${sandbox?.state ?? 'loading'}`} data-testid="status-state">
          ● {sandbox?.state ?? 'loading'}
        </span>
        {timeLeft !== undefined && (
          <span
            title={sandbox?.auto_pause ? 'Pauses when idle this long' : 'Deleted when idle this long'}
            data-testid="status-time-left"
          >
            {formatClock(timeLeft)} left {sandbox?.auto_pause ? '(then pauses)' : '(then deleted)'}
          </span>
        )}
        {branch && (
          <span title="Git branch" className="status-branch">
            <Icon name="branch" size={12} /> {branch}
          </span>
        )}
        <span className="status-spacer" />
        {cursor && (
          <>
            <span>
              Ln {cursor.line}, Col {cursor.column}
            </span>
            <span>{cursor.language}</span>
          </>
        )}
        {sandbox && (
          <span className="muted">
            {sandbox.vcpu} vCPU · {sandbox.memory} MiB · net {sandbox.network_policy.mode}
          </span>
        )}
      </footer>
    </div>
  );
}

function StateOverlay({
  sandbox,
  acting,
  onResume,
  onStart,
}: {
  sandbox: Sandbox;
  acting: string | null;
  onResume: () => void;
  onStart: () => void;
}) {
  const { state } = sandbox;
  // While starting, the terminal already waits for the shell underneath: show progress, not a wall.
  if (state === 'starting' || state === 'unpausing' || state === 'snapshotting') {
    return (
      <div className="ide-progress" role="status" data-testid="ide-progress">
        <Spinner /> {state === 'starting' ? 'Starting the sandbox…' : `${state}…`}
        <div className="progress-bar">
          <div className="progress-bar-fill" />
        </div>
      </div>
    );
  }
  return (
    <div className="ide-overlay" role="dialog" aria-label={`Sandbox ${state}`}>
      <div className="card">
        {state === 'paused' && (
          <>
            <h2>The sandbox is paused</h2>
            <p className="muted">Its processes are frozen; everything is kept.</p>
            <button className="button button-primary" onClick={onResume} disabled={acting !== null}>
              {acting ? <Spinner /> : null} Resume
            </button>
          </>
        )}
        {(state === 'stopped' || state === 'stopping') && (
          <>
            <h2>The sandbox is {state}</h2>
            <p className="muted">Its disk is kept; processes and terminals ended.</p>
            <button
              className="button button-primary"
              onClick={onStart}
              disabled={acting !== null || state === 'stopping'}
            >
              {acting ? <Spinner /> : null} Start
            </button>
          </>
        )}
        {(state === 'deleted' || state === 'deleting') && (
          <>
            <h2>The sandbox was deleted</h2>
            <p className="muted">It timed out or someone deleted it.</p>
          </>
        )}
        <p>
          <Link href="/">Back to the dashboard</Link>
        </p>
      </div>
    </div>
  );
}
