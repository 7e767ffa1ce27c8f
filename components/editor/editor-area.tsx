'use client';

import { DiffEditor, Editor, loader, type Monaco, type OnMount } from '@monaco-editor/react';
import { useCallback, useEffect, useRef, useState } from 'react';
import { api, errorMessage } from '../lib/api-client';
import { formatBytes } from '../lib/format';
import { basename } from '../lib/paths';
import { useDialogs, useToast } from '../ui/feedback';
import { Spinner } from '../ui/misc';
import type { Theme } from '../ui/theme';
import { decodeText, isBinary, languageFor, LARGE_FILE_BYTES } from './file-kind';
import type { CursorInfo, EditorTab } from './types';

// Monaco is served by Shoal itself (public/monaco/vs, copied at build time): never a CDN.
loader.config({ paths: { vs: '/monaco/vs' } });

interface TsDefaults {
  setDiagnosticsOptions(options: { noSemanticValidation?: boolean; noSyntaxValidation?: boolean }): void;
}
interface TsApi {
  typescriptDefaults?: TsDefaults;
  javascriptDefaults?: TsDefaults;
}

let configured = false;
/**
 * Type errors need the project's dependencies, which the browser cannot see: keep syntax
 * errors, drop the semantic ones ("cannot find module 'node:http'").
 */
function configureMonaco(monaco: Monaco): void {
  if (configured) return;
  configured = true;
  const api = monaco as unknown as { typescript?: TsApi; languages: { typescript?: TsApi } };
  const ts = api.typescript?.typescriptDefaults ? api.typescript : api.languages.typescript;
  for (const defaults of [ts?.typescriptDefaults, ts?.javascriptDefaults]) {
    defaults?.setDiagnosticsOptions({ noSemanticValidation: true, noSyntaxValidation: false });
  }
}

type MonacoEditor = Parameters<OnMount>[0];

type FileState =
  | { status: 'error'; message: string }
  | {
      status: 'ready';
      text: string;
      mtime: number;
      size: number;
      readOnly: boolean;
      binary: boolean;
      note?: string;
      /** mtime seen on disk that differs from the one we opened or saved. */
      changedOnDisk?: number;
      bytes?: Uint8Array;
    };

type DiffState = { status: 'error'; message: string } | { status: 'ready'; original: string; modified: string };

export interface EditorAreaProps {
  sandboxId: string;
  tabs: EditorTab[];
  activeKey: string | null;
  theme: Theme;
  onDirty: (key: string, dirty: boolean) => void;
  onSaved: (path: string) => void;
  onCursor: (info: CursorInfo | null) => void;
}

function modelUri(path: string): string {
  return `file://${path
    .split('/')
    .map((part) => encodeURIComponent(part))
    .join('/')}`;
}

function hexDump(bytes: Uint8Array, max = 4096): string {
  const lines: string[] = [];
  for (let offset = 0; offset < Math.min(bytes.length, max); offset += 16) {
    const row = bytes.subarray(offset, offset + 16);
    const hex = [...row].map((b) => b.toString(16).padStart(2, '0')).join(' ');
    const ascii = [...row].map((b) => (b >= 32 && b < 127 ? String.fromCharCode(b) : '.')).join('');
    lines.push(`${offset.toString(16).padStart(8, '0')}  ${hex.padEnd(47)}  ${ascii}`);
  }
  if (bytes.length > max) lines.push(`… ${formatBytes(bytes.length - max)} more`);
  return lines.join('\n');
}

async function gitShow(sandboxId: string, repo: string, revision: string): Promise<string> {
  const result = await api.git.show(sandboxId, repo, revision);
  return result.exit_code === 0 ? result.output : '';
}

/**
 * The Monaco editor with one model per open file (undo history survives tab switches), the
 * diff editor for git changes, save with Ctrl/Cmd+S, and a warning when the file changed on
 * disk since it was opened. Loaded lazily: Monaco is never part of the dashboard.
 */
export default function EditorArea({ sandboxId, tabs, activeKey, theme, onDirty, onSaved, onCursor }: EditorAreaProps) {
  const toast = useToast();
  const dialogs = useDialogs();
  const [files, setFiles] = useState<Record<string, FileState>>({});
  const [diffs, setDiffs] = useState<Record<string, DiffState>>({});
  const [saving, setSaving] = useState<string | null>(null);
  const editorRef = useRef<MonacoEditor | null>(null);
  const monacoRef = useRef<Monaco | null>(null);
  const savedVersions = useRef(new Map<string, number>());
  const requested = useRef(new Set<string>());
  const filesRef = useRef(files);
  const tabsRef = useRef(tabs);
  const activeRef = useRef(activeKey);
  const callbacks = useRef({ onDirty, onSaved, onCursor });

  useEffect(() => {
    filesRef.current = files;
    tabsRef.current = tabs;
    activeRef.current = activeKey;
    callbacks.current = { onDirty, onSaved, onCursor };
  });

  const active = tabs.find((tab) => tab.key === activeKey) ?? null;

  // ---- loading ------------------------------------------------------------------------------

  const loadFile = useCallback(
    async (path: string) => {
      try {
        const info = await api.fs.stat(sandboxId, path);
        const large = info.size > LARGE_FILE_BYTES;
        const bytes = await api.fs.readFile(sandboxId, path, large ? LARGE_FILE_BYTES : undefined);
        const binary = isBinary(bytes);
        const state: FileState = {
          status: 'ready',
          text: binary ? '' : decodeText(bytes),
          mtime: info.mtime,
          size: info.size,
          readOnly: binary || large,
          binary,
          note: binary
            ? `Binary file (${formatBytes(info.size)}): shown read-only`
            : large
              ? `Large file (${formatBytes(info.size)}): the first ${formatBytes(LARGE_FILE_BYTES)} are shown read-only`
              : undefined,
          bytes: binary ? bytes.subarray(0, 4096) : undefined,
        };
        // A model left from an earlier open of the same path would show stale text.
        monacoRef.current?.editor.getModel(monacoRef.current.Uri.parse(modelUri(path)))?.setValue(state.text);
        setFiles((map) => ({ ...map, [path]: state }));
      } catch (error) {
        setFiles((map) => ({ ...map, [path]: { status: 'error', message: errorMessage(error) } }));
      }
    },
    [sandboxId],
  );

  const loadDiff = useCallback(
    async (tab: Extract<EditorTab, { kind: 'diff' }>) => {
      try {
        let original: string;
        let modified: string;
        if (tab.staged) {
          [original, modified] = await Promise.all([
            gitShow(sandboxId, tab.repo, `HEAD:${tab.rel}`),
            gitShow(sandboxId, tab.repo, `:${tab.rel}`),
          ]);
        } else {
          const readWorking = api.fs
            .readFile(sandboxId, tab.path)
            .then(decodeText)
            .catch(() => '');
          [original, modified] = await Promise.all([
            tab.untracked ? Promise.resolve('') : gitShow(sandboxId, tab.repo, `:${tab.rel}`),
            readWorking,
          ]);
        }
        setDiffs((map) => ({ ...map, [tab.key]: { status: 'ready', original, modified } }));
      } catch (error) {
        setDiffs((map) => ({ ...map, [tab.key]: { status: 'error', message: errorMessage(error) } }));
      }
    },
    [sandboxId],
  );

  useEffect(() => {
    for (const tab of tabs) {
      if (requested.current.has(tab.key)) continue;
      requested.current.add(tab.key);
      if (tab.kind === 'file') void loadFile(tab.path);
      else void loadDiff(tab);
    }
    // Closed tabs: forget their state and dispose their models.
    const open = new Set(tabs.map((tab) => tab.key));
    for (const key of [...requested.current]) {
      if (open.has(key)) continue;
      requested.current.delete(key);
      if (key.startsWith('file:')) {
        const path = key.slice(5);
        savedVersions.current.delete(path);
        const monaco = monacoRef.current;
        if (editorRef.current?.getModel()?.uri.toString() !== monaco?.Uri.parse(modelUri(path)).toString()) {
          monaco?.editor.getModel(monaco.Uri.parse(modelUri(path)))?.dispose();
        }
        setFiles((map) => {
          const next = { ...map };
          delete next[path];
          return next;
        });
      } else {
        setDiffs((map) => {
          const next = { ...map };
          delete next[key];
          return next;
        });
      }
    }
  }, [tabs, loadFile, loadDiff]);

  // ---- dirty state and saving ---------------------------------------------------------------

  const reportDirty = useCallback((path: string) => {
    const monaco = monacoRef.current;
    const model = monaco?.editor.getModel(monaco.Uri.parse(modelUri(path)));
    if (!model) return;
    const saved = savedVersions.current.get(path);
    if (saved === undefined) {
      savedVersions.current.set(path, model.getAlternativeVersionId());
      return;
    }
    callbacks.current.onDirty(`file:${path}`, model.getAlternativeVersionId() !== saved);
  }, []);

  const save = useCallback(async () => {
    const tab = tabsRef.current.find((t) => t.key === activeRef.current);
    if (!tab || tab.kind !== 'file') return;
    const state = filesRef.current[tab.path];
    if (!state || state.status !== 'ready' || state.readOnly) return;
    const monaco = monacoRef.current;
    const model = monaco?.editor.getModel(monaco.Uri.parse(modelUri(tab.path)));
    if (!model) return;
    const version = model.getAlternativeVersionId();
    const text = model.getValue();
    setSaving(tab.path);
    try {
      const current = await api.fs.stat(sandboxId, tab.path).catch((error) => {
        if ((error as { status?: number }).status === 404) return null;
        throw error;
      });
      if (current && current.mtime !== state.mtime) {
        const ok = await dialogs.confirm({
          title: `${basename(tab.path)} changed on disk`,
          message:
            'Someone (a terminal, git, another tab) changed this file after you opened it. Overwrite it with your version?',
          confirmLabel: 'Overwrite',
          danger: true,
        });
        if (!ok) return;
      }
      await api.fs.writeFile(sandboxId, tab.path, text);
      const after = await api.fs.stat(sandboxId, tab.path);
      savedVersions.current.set(tab.path, version);
      setFiles((map) => {
        const entry = map[tab.path];
        if (!entry || entry.status !== 'ready') return map;
        return {
          ...map,
          [tab.path]: { ...entry, text, mtime: after.mtime, size: after.size, changedOnDisk: undefined },
        };
      });
      callbacks.current.onDirty(tab.key, model.getAlternativeVersionId() !== version);
      callbacks.current.onSaved(tab.path);
    } catch (error) {
      toast.error(`Saving ${basename(tab.path)} failed: ${errorMessage(error)}`);
    } finally {
      setSaving(null);
    }
  }, [sandboxId, dialogs, toast]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 's') {
        event.preventDefault();
        void save();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [save]);

  // ---- changed on disk ----------------------------------------------------------------------

  const checkDisk = useCallback(async () => {
    const tab = tabsRef.current.find((t) => t.key === activeRef.current);
    if (!tab || tab.kind !== 'file') return;
    const state = filesRef.current[tab.path];
    if (!state || state.status !== 'ready') return;
    try {
      const info = await api.fs.stat(sandboxId, tab.path);
      if (info.mtime !== state.mtime) {
        setFiles((map) => {
          const entry = map[tab.path];
          if (!entry || entry.status !== 'ready' || entry.changedOnDisk === info.mtime) return map;
          return { ...map, [tab.path]: { ...entry, changedOnDisk: info.mtime } };
        });
      }
    } catch {
      // deleted or the sandbox is gone: saving will say so
    }
  }, [sandboxId]);

  useEffect(() => {
    const onFocus = () => void checkDisk();
    window.addEventListener('focus', onFocus);
    const timer = setInterval(() => document.visibilityState === 'visible' && void checkDisk(), 15_000);
    return () => {
      window.removeEventListener('focus', onFocus);
      clearInterval(timer);
    };
  }, [checkDisk]);

  useEffect(() => {
    if (activeKey?.startsWith('file:')) void checkDisk();
    if (!activeKey?.startsWith('file:')) callbacks.current.onCursor(null);
  }, [activeKey, checkDisk]);

  const reloadFromDisk = async (path: string) => {
    const monaco = monacoRef.current;
    const model = monaco?.editor.getModel(monaco.Uri.parse(modelUri(path)));
    if (model && savedVersions.current.get(path) !== model.getAlternativeVersionId()) {
      const ok = await dialogs.confirm({
        title: 'Discard your changes?',
        message: 'Reloading replaces your unsaved edits with the version on disk.',
        confirmLabel: 'Reload',
        danger: true,
      });
      if (!ok) return;
    }
    await loadFile(path);
    if (model) savedVersions.current.set(path, model.getAlternativeVersionId());
    callbacks.current.onDirty(`file:${path}`, false);
  };

  const keepMine = (path: string) =>
    setFiles((map) => {
      const entry = map[path];
      if (!entry || entry.status !== 'ready' || entry.changedOnDisk === undefined) return map;
      return { ...map, [path]: { ...entry, mtime: entry.changedOnDisk, changedOnDisk: undefined } };
    });

  // ---- rendering ----------------------------------------------------------------------------

  const monacoTheme = theme === 'light' ? 'vs' : 'vs-dark';
  const fileState = active?.kind === 'file' ? files[active.path] : undefined;
  const diffState = active?.kind === 'diff' ? diffs[active.key] : undefined;
  const showEditor = active?.kind === 'file' && fileState?.status === 'ready' && !fileState.binary;
  // The editor stays mounted (hidden) while a diff tab shows, so the models keep their undo history.
  const isTextFile = (path: string) => {
    const state = files[path];
    return state?.status === 'ready' && !state.binary;
  };
  const editorFilePath =
    active?.kind === 'file' && showEditor
      ? active.path
      : (tabs.filter((tab) => tab.kind === 'file' && isTextFile(tab.path)).at(-1)?.path ?? null);
  const editorState = editorFilePath ? files[editorFilePath] : undefined;
  const editorFile = editorState?.status === 'ready' ? editorState : undefined;

  const onMount: OnMount = (editor, monaco) => {
    editorRef.current = editor;
    monacoRef.current = monaco;
    const path = activeRef.current?.startsWith('file:') ? activeRef.current.slice(5) : null;
    if (path) reportDirty(path);
    editor.onDidChangeModel(() => {
      const uri = editor.getModel()?.uri;
      if (!uri) return;
      const current = tabsRef.current.find((t) => t.kind === 'file' && modelUri(t.path) === uri.toString());
      if (current) reportDirty(current.path);
    });
    editor.onDidChangeCursorPosition((event) => {
      const model = editor.getModel();
      callbacks.current.onCursor({
        line: event.position.lineNumber,
        column: event.position.column,
        language: model?.getLanguageId() ?? 'plaintext',
      });
    });
    editor.focus();
  };

  if (!active) {
    return (
      <div className="editor-empty" data-testid="editor-empty">
        <p>Open a file from the tree on the left.</p>
        <p className="muted small">
          Ctrl+S save · Ctrl+Shift+E files · Ctrl+Shift+G git · Ctrl+` terminal · Alt+W close tab
        </p>
      </div>
    );
  }

  return (
    <div className="editor-area" data-testid="editor" data-active-path={active.path}>
      {active.kind === 'file' && fileState?.status === 'ready' && fileState.changedOnDisk !== undefined && (
        <div className="editor-banner warn" role="alert" data-testid="editor-changed-on-disk">
          This file changed on disk since you opened it.
          <button className="button button-small" onClick={() => void reloadFromDisk(active.path)}>
            Reload from disk
          </button>
          <button className="button button-small" onClick={() => keepMine(active.path)}>
            Keep my version
          </button>
        </div>
      )}
      {active.kind === 'file' && fileState?.status === 'ready' && fileState.note && (
        <div className="editor-banner" data-testid="editor-readonly-note">
          {fileState.note}
        </div>
      )}
      {saving === active.path && (
        <div className="editor-saving">
          <Spinner /> Saving…
        </div>
      )}
      {active.kind === 'file' && !fileState && (
        <div className="panel-loading">
          <Spinner /> Opening {basename(active.path)}…
        </div>
      )}
      {fileState?.status === 'error' && (
        <div className="inline-error" role="alert">
          Could not open {active.path}: {fileState.message}
        </div>
      )}
      {fileState?.status === 'ready' && fileState.binary && (
        <pre className="hex-dump" data-testid="editor-binary">
          {hexDump(fileState.bytes ?? new Uint8Array())}
        </pre>
      )}
      <div className="monaco-host" style={{ display: showEditor ? 'block' : 'none' }}>
        {editorFile && editorFilePath && (
          <Editor
            path={modelUri(editorFilePath)}
            defaultValue={editorFile.text}
            language={languageFor(editorFilePath)}
            theme={monacoTheme}
            keepCurrentModel
            saveViewState
            beforeMount={configureMonaco}
            loading={
              <div className="panel-loading">
                <Spinner /> Loading the editor…
              </div>
            }
            options={{
              readOnly: editorFile.readOnly,
              automaticLayout: true,
              fontSize: 13,
              fontFamily: 'ui-monospace, "DejaVu Sans Mono", "Liberation Mono", Menlo, Consolas, monospace',
              minimap: { enabled: true, scale: 1, renderCharacters: false },
              scrollBeyondLastLine: false,
              tabSize: 2,
              renderWhitespace: 'selection',
            }}
            onMount={onMount}
            onChange={() => reportDirty(editorFilePath)}
          />
        )}
      </div>
      {active.kind === 'diff' && !diffState && (
        <div className="panel-loading">
          <Spinner /> Loading the diff…
        </div>
      )}
      {diffState?.status === 'error' && (
        <div className="inline-error" role="alert">
          Could not load the diff: {diffState.message}
        </div>
      )}
      {active.kind === 'diff' && diffState?.status === 'ready' && (
        <div className="monaco-host" data-testid="editor-diff">
          <div className="editor-banner">
            {active.rel}: {active.staged ? 'HEAD ↔ staged' : active.untracked ? 'new file' : 'staged ↔ working tree'}
          </div>
          <DiffEditor
            key={active.key}
            original={diffState.original}
            modified={diffState.modified}
            language={languageFor(active.path)}
            theme={monacoTheme}
            beforeMount={configureMonaco}
            options={{ readOnly: true, automaticLayout: true, renderSideBySide: true, originalEditable: false }}
          />
        </div>
      )}
    </div>
  );
}
