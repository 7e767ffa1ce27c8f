'use client';

import { Icon, type IconName } from '../ui/icons';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { api, errorMessage } from '../lib/api-client';
import { formatBytes } from '../lib/format';
import { basename, dirname, joinPath, validName } from '../lib/paths';
import type { FileInfo } from '../lib/types';
import { useDialogs, useToast } from '../ui/feedback';
import { Spinner } from '../ui/misc';

/** Entries rendered per directory before a "show more" row: huge directories stay fast. */
const PAGE = 300;

export interface FileTreeProps {
  sandboxId: string;
  root: string;
  enabled: boolean;
  /** Bumped from outside (a save, a commit, a clone) to reload what is expanded. */
  refreshSignal: number;
  onOpenFile: (path: string) => void;
  onRootChange: (root: string) => void;
  /** A file or folder was renamed or deleted: editor tabs follow. */
  onMoved: (from: string, to: string | null) => void;
}

interface Row {
  kind: 'entry' | 'more' | 'input' | 'loading' | 'error';
  depth: number;
  entry?: FileInfo;
  dir?: string;
  message?: string;
  hidden?: number;
}

function sortEntries(items: FileInfo[]): FileInfo[] {
  return [...items].sort((a, b) =>
    a.is_dir === b.is_dir ? a.name.localeCompare(b.name, undefined, { numeric: true }) : a.is_dir ? -1 : 1,
  );
}

export function FileTree({
  sandboxId,
  root,
  enabled,
  refreshSignal,
  onOpenFile,
  onRootChange,
  onMoved,
}: FileTreeProps) {
  const toast = useToast();
  const dialogs = useDialogs();
  const [children, setChildren] = useState<Record<string, FileInfo[]>>({});
  const [expanded, setExpanded] = useState<Set<string>>(() => new Set([root]));
  const [loading, setLoading] = useState<Set<string>>(() => new Set());
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [limits, setLimits] = useState<Record<string, number>>({});
  const [selected, setSelected] = useState<string | null>(null);
  const [creating, setCreating] = useState<{ dir: string; kind: 'file' | 'folder' } | null>(null);
  const [newName, setNewName] = useState('');
  const [dropTarget, setDropTarget] = useState<string | null>(null);
  const uploadRef = useRef<HTMLInputElement>(null);
  const expandedRef = useRef(expanded);

  useEffect(() => {
    expandedRef.current = expanded;
  }, [expanded]);

  const load = useCallback(
    async (dir: string) => {
      setLoading((set) => new Set(set).add(dir));
      try {
        const { items } = await api.fs.ls(sandboxId, dir);
        setChildren((map) => ({ ...map, [dir]: sortEntries(items) }));
        setErrors((map) => {
          const next = { ...map };
          delete next[dir];
          return next;
        });
      } catch (error) {
        setErrors((map) => ({ ...map, [dir]: errorMessage(error) }));
      } finally {
        setLoading((set) => {
          const next = new Set(set);
          next.delete(dir);
          return next;
        });
      }
    },
    [sandboxId],
  );

  const refresh = useCallback(async () => {
    await Promise.all([...expandedRef.current].map((dir) => load(dir)));
  }, [load]);

  useEffect(() => {
    if (!enabled) return;
    void refresh();
  }, [enabled, refresh, refreshSignal, root]);

  const toggle = (dir: string) => {
    const open = !expanded.has(dir);
    setExpanded((set) => {
      const next = new Set(set);
      if (open) next.add(dir);
      else next.delete(dir);
      return next;
    });
    if (open && !children[dir]) void load(dir);
  };

  const targetDir = (): string => {
    if (!selected) return root;
    const entry = Object.values(children)
      .flat()
      .find((item) => item.path === selected);
    return entry?.is_dir ? entry.path : dirname(selected);
  };

  const startCreate = (kind: 'file' | 'folder', dir = targetDir()) => {
    setExpanded((set) => new Set(set).add(dir));
    if (!children[dir]) void load(dir);
    setNewName('');
    setCreating({ dir, kind });
  };

  const finishCreate = async () => {
    if (!creating) return;
    const problem = validName(newName);
    if (problem) {
      toast.error(problem);
      return;
    }
    const path = joinPath(creating.dir, newName.trim());
    const { kind } = creating;
    setCreating(null);
    try {
      if ((await api.fs.exists(sandboxId, path)).exists) {
        toast.error(`${path} already exists`);
        return;
      }
      if (kind === 'folder') await api.fs.mkdir(sandboxId, path);
      else await api.fs.writeFile(sandboxId, path, '');
      // Intermediate folders of `a/b/c.txt` appear too.
      await load(creating.dir);
      setSelected(path);
      if (kind === 'file') onOpenFile(path);
    } catch (error) {
      toast.error(`Could not create ${path}: ${errorMessage(error)}`);
    }
  };

  const rename = async (entry: FileInfo) => {
    const name = await dialogs.prompt({
      title: `Rename ${entry.name}`,
      label: 'New name',
      defaultValue: entry.name,
      confirmLabel: 'Rename',
      validate: validName,
    });
    if (!name || name === entry.name) return;
    const target = joinPath(dirname(entry.path), name);
    try {
      await api.fs.move(sandboxId, entry.path, target);
      onMoved(entry.path, target);
      setSelected(target);
      await load(dirname(entry.path));
    } catch (error) {
      toast.error(`Rename failed: ${errorMessage(error)}`);
    }
  };

  const remove = async (entry: FileInfo) => {
    const ok = await dialogs.confirm({
      title: `Delete ${entry.name}?`,
      message: entry.is_dir ? `The folder ${entry.path} and everything in it is deleted.` : `${entry.path} is deleted.`,
      confirmLabel: 'Delete',
      danger: true,
    });
    if (!ok) return;
    try {
      await api.fs.remove(sandboxId, entry.path, entry.is_dir);
      onMoved(entry.path, null);
      if (selected === entry.path) setSelected(null);
      await load(dirname(entry.path));
    } catch (error) {
      toast.error(`Delete failed: ${errorMessage(error)}`);
    }
  };

  const download = async (entry: FileInfo) => {
    try {
      const bytes = await api.fs.readFile(sandboxId, entry.path);
      const url = URL.createObjectURL(new Blob([bytes as BlobPart], { type: 'application/octet-stream' }));
      const anchor = document.createElement('a');
      anchor.href = url;
      anchor.download = entry.name;
      document.body.appendChild(anchor);
      anchor.click();
      anchor.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (error) {
      toast.error(`Download failed: ${errorMessage(error)}`);
    }
  };

  const upload = async (files: FileList | File[], dir: string) => {
    const list = [...files];
    if (list.length === 0) return;
    const total = list.reduce((sum, file) => sum + file.size, 0);
    if (total > 10 * 1024 * 1024) {
      toast.error(`Uploads are limited to 10 MiB per request (${formatBytes(total)} selected)`);
      return;
    }
    try {
      await api.fs.writeFiles(
        sandboxId,
        list.map((file) => ({ path: joinPath(dir, file.name), data: file })),
      );
      toast.success(`Uploaded ${list.length === 1 ? list[0].name : `${list.length} files`} to ${dir}`);
      setExpanded((set) => new Set(set).add(dir));
      await load(dir);
    } catch (error) {
      toast.error(`Upload failed: ${errorMessage(error)}`);
    }
  };

  const rows = useMemo(() => {
    const out: Row[] = [];
    const walk = (dir: string, depth: number) => {
      if (creating && creating.dir === dir) out.push({ kind: 'input', depth, dir });
      if (errors[dir]) out.push({ kind: 'error', depth, message: errors[dir], dir });
      const items = children[dir];
      if (!items) {
        if (loading.has(dir)) out.push({ kind: 'loading', depth });
        return;
      }
      const limit = limits[dir] ?? PAGE;
      for (const entry of items.slice(0, limit)) {
        out.push({ kind: 'entry', depth, entry });
        if (entry.is_dir && expanded.has(entry.path)) walk(entry.path, depth + 1);
      }
      if (items.length > limit) out.push({ kind: 'more', depth, dir, hidden: items.length - limit });
    };
    walk(root, 0);
    return out;
  }, [children, creating, errors, expanded, limits, loading, root]);

  const onKeyDown = (event: React.KeyboardEvent) => {
    if (!selected || (event.target as HTMLElement).tagName === 'INPUT') return;
    const entry = rows.find((row) => row.entry?.path === selected)?.entry;
    if (!entry) return;
    if (event.key === 'F2') {
      event.preventDefault();
      void rename(entry);
    } else if (event.key === 'Delete') {
      event.preventDefault();
      void remove(entry);
    } else if (event.key === 'Enter') {
      event.preventDefault();
      if (entry.is_dir) toggle(entry.path);
      else onOpenFile(entry.path);
    }
  };

  return (
    <div
      className={`file-tree ${dropTarget === root ? 'drop-target' : ''}`}
      data-testid="file-tree"
      onKeyDown={onKeyDown}
      onDragOver={(event) => {
        if (event.dataTransfer.types.includes('Files')) {
          event.preventDefault();
          setDropTarget(root);
        }
      }}
      onDragLeave={() => setDropTarget(null)}
      onDrop={(event) => {
        event.preventDefault();
        setDropTarget(null);
        void upload(event.dataTransfer.files, targetDir());
      }}
    >
      <div className="sidebar-head">
        <button
          className="sidebar-title link-button"
          title="Change the folder shown"
          onClick={async () => {
            const next = await dialogs.prompt({
              title: 'Show folder',
              label: 'Absolute path in the sandbox',
              defaultValue: root,
              validate: (value) => (value.trim().startsWith('/') ? null : 'Use an absolute path'),
            });
            if (next) onRootChange(next.replace(/\/+$/, '') || '/');
          }}
        >
          {basename(root) === '/' ? '/' : basename(root)}
        </button>
        <div className="sidebar-actions">
          <button
            className="icon-button"
            title="New file"
            aria-label="New file"
            onClick={() => startCreate('file')}
            data-testid="file-tree-new-file"
            disabled={!enabled}
          >
            <Icon name="newFile" />
          </button>
          <button
            className="icon-button"
            title="New folder"
            aria-label="New folder"
            onClick={() => startCreate('folder')}
            data-testid="file-tree-new-folder"
            disabled={!enabled}
          >
            <Icon name="newFolder" />
          </button>
          <button
            className="icon-button"
            title="Upload files"
            aria-label="Upload files"
            onClick={() => uploadRef.current?.click()}
            data-testid="file-tree-upload"
            disabled={!enabled}
          >
            <Icon name="upload" />
          </button>
          <button
            className="icon-button"
            title="Refresh"
            aria-label="Refresh"
            onClick={() => void refresh()}
            data-testid="file-tree-refresh"
            disabled={!enabled}
          >
            <Icon name="refresh" />
          </button>
          <button
            className="icon-button"
            title="Collapse all"
            aria-label="Collapse all"
            onClick={() => setExpanded(new Set([root]))}
          >
            <Icon name="collapse" />
          </button>
        </div>
        <input
          ref={uploadRef}
          type="file"
          multiple
          hidden
          data-testid="file-tree-upload-input"
          onChange={(event) => {
            if (event.target.files) void upload(event.target.files, targetDir());
            event.target.value = '';
          }}
        />
      </div>
      <div className="tree-rows" role="tree" aria-label="Files">
        {rows.map((row, index) => {
          const indent = { paddingLeft: 8 + row.depth * 14 };
          if (row.kind === 'input') {
            return (
              <form
                key={`input-${row.dir}`}
                className="tree-row tree-input"
                style={indent}
                onSubmit={(event) => {
                  event.preventDefault();
                  void finishCreate();
                }}
              >
                <span className="tree-icon">{creating?.kind === 'folder' ? '▸' : '·'}</span>
                <input
                  autoFocus
                  data-testid="file-tree-name-input"
                  placeholder={creating?.kind === 'folder' ? 'folder name' : 'file name'}
                  value={newName}
                  onChange={(event) => setNewName(event.target.value)}
                  onBlur={() => !newName && setCreating(null)}
                  onKeyDown={(event) => event.key === 'Escape' && setCreating(null)}
                  spellCheck={false}
                />
              </form>
            );
          }
          if (row.kind === 'loading') {
            return (
              <div key={`loading-${index}`} className="tree-row muted" style={indent}>
                <Spinner /> Loading…
              </div>
            );
          }
          if (row.kind === 'error') {
            return (
              <div key={`error-${row.dir}`} className="tree-row tree-error" style={indent} role="alert">
                {row.message}
              </div>
            );
          }
          if (row.kind === 'more') {
            return (
              <button
                key={`more-${row.dir}`}
                className="tree-row tree-more link-button"
                style={indent}
                onClick={() => setLimits((map) => ({ ...map, [row.dir!]: (map[row.dir!] ?? PAGE) + PAGE * 4 }))}
              >
                Show {Math.min(row.hidden!, PAGE * 4)} more of {row.hidden}…
              </button>
            );
          }
          const entry = row.entry!;
          const isOpen = entry.is_dir && expanded.has(entry.path);
          return (
            <div
              key={entry.path}
              role="treeitem"
              aria-selected={selected === entry.path}
              aria-expanded={entry.is_dir ? isOpen : undefined}
              tabIndex={0}
              className={`tree-row ${selected === entry.path ? 'selected' : ''}`}
              style={indent}
              data-testid="file-tree-item"
              data-path={entry.path}
              title={`${entry.path}${entry.is_dir ? '' : ` · ${formatBytes(entry.size)}`}${entry.is_symlink ? ` → ${entry.link_target ?? ''}` : ''}`}
              onClick={() => {
                setSelected(entry.path);
                if (entry.is_dir) toggle(entry.path);
                else onOpenFile(entry.path);
              }}
            >
              <span className="tree-icon" aria-hidden>
                {entry.is_dir ? (isOpen ? '▾' : '▸') : '·'}
              </span>
              <span className={`tree-name ${entry.is_dir ? 'dir' : ''}`}>{entry.name}</span>
              {entry.is_symlink && <span className="muted small">↪</span>}
              {loading.has(entry.path) && <Spinner />}
              <span className="tree-row-actions">
                {entry.is_dir ? (
                  <RowAction
                    title="New file here"
                    label={`New file in ${entry.name}`}
                    icon="newFile"
                    onClick={() => startCreate('file', entry.path)}
                  />
                ) : (
                  <RowAction
                    title="Download"
                    label={`Download ${entry.name}`}
                    icon="download"
                    onClick={() => void download(entry)}
                  />
                )}
                <RowAction
                  title="Rename (F2)"
                  label={`Rename ${entry.name}`}
                  icon="pencil"
                  onClick={() => void rename(entry)}
                />
                <RowAction
                  title="Delete (Del)"
                  label={`Delete ${entry.name}`}
                  icon="trash"
                  testId={`file-tree-delete-${entry.name}`}
                  onClick={() => void remove(entry)}
                />
              </span>
            </div>
          );
        })}
        {enabled && children[root]?.length === 0 && !creating && (
          <div className="tree-row muted">Empty folder. Create a file above, or drop files here.</div>
        )}
      </div>
    </div>
  );
}

/** A button in a tree row's hover actions; the click never also selects or opens the row. */
function RowAction({
  title,
  label,
  icon,
  testId,
  onClick,
}: {
  title: string;
  label: string;
  icon: IconName;
  testId?: string;
  onClick: () => void;
}) {
  return (
    <button
      className="icon-button"
      title={title}
      aria-label={label}
      data-testid={testId}
      onClick={(event) => {
        event.stopPropagation();
        onClick();
      }}
    >
      <Icon name={icon} />
    </button>
  );
}
