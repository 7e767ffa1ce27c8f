'use client';

import { FitAddon } from '@xterm/addon-fit';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { Terminal, type ITheme } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef, useState } from 'react';
import { api } from '../lib/api-client';
import { PtySocket, type PtyStatus } from '../lib/pty-socket';
import type { Theme } from '../ui/theme';

const THEMES: Record<Theme, ITheme> = {
  dark: {
    background: '#0f1117',
    foreground: '#d7dae0',
    cursor: '#e6e6e6',
    selectionBackground: '#3a4a6b',
    black: '#1b1e27',
    brightBlack: '#5c6370',
  },
  light: {
    background: '#ffffff',
    foreground: '#1f2328',
    cursor: '#1f2328',
    selectionBackground: '#b6d3ff',
    black: '#1f2328',
    white: '#6e7781',
    brightWhite: '#8c959f',
    yellow: '#9a6700',
    brightYellow: '#7d4e00',
  },
};

export interface TerminalViewProps {
  sandboxId: string;
  sessionId: string;
  active: boolean;
  theme: Theme;
  onStatus?: (status: PtyStatus, detail?: string) => void;
  onTitle?: (title: string) => void;
}

/**
 * One xterm.js terminal bound to a PTY session over the framed `shoal.pty.v1` WebSocket. It
 * replays the session's buffered output on attach (so a reload shows the scrollback), resumes
 * from its byte offset after a dropped connection, and follows its panel's size.
 */
export default function TerminalView({ sandboxId, sessionId, active, theme, onStatus, onTitle }: TerminalViewProps) {
  const hostRef = useRef<HTMLDivElement>(null);
  const termRef = useRef<Terminal | null>(null);
  const fitRef = useRef<FitAddon | null>(null);
  const socketRef = useRef<PtySocket | null>(null);
  const callbacks = useRef({ onStatus, onTitle });
  const [status, setStatus] = useState<{ status: PtyStatus; detail?: string }>({ status: 'connecting' });

  useEffect(() => {
    callbacks.current = { onStatus, onTitle };
  }, [onStatus, onTitle]);

  useEffect(() => {
    const host = hostRef.current;
    if (!host) return;
    const term = new Terminal({
      cursorBlink: true,
      fontFamily: 'ui-monospace, "DejaVu Sans Mono", "Liberation Mono", Menlo, Consolas, monospace',
      fontSize: 13,
      scrollback: 10000,
      theme: THEMES[document.documentElement.dataset.theme === 'light' ? 'light' : 'dark'],
      allowProposedApi: false,
    });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.loadAddon(
      new WebLinksAddon((_event, uri) => {
        window.open(uri, '_blank', 'noopener,noreferrer');
      }),
    );
    term.open(host);
    termRef.current = term;
    fitRef.current = fit;

    const socket = new PtySocket({
      url: (offset) => api.pty.connectUrl(sandboxId, sessionId, offset),
      startOffset: 0,
      onData: (bytes) => term.write(bytes),
      onStatus: (next, detail) => {
        setStatus({ status: next, detail });
        callbacks.current.onStatus?.(next, detail);
      },
      onExit: (code) => term.write(`\r\n\x1b[2m[process exited with code ${code}]\x1b[0m\r\n`),
      onGap: (lost) => term.write(`\r\n\x1b[33m[${lost} bytes of output were dropped while disconnected]\x1b[0m\r\n`),
      sessionExists: async () => {
        try {
          const session = await api.pty.get(sandboxId, sessionId);
          return session.active;
        } catch (error) {
          return (error as { status?: number }).status !== 404;
        }
      },
    });
    socketRef.current = socket;

    // Copy and paste: Ctrl+Shift+C / Ctrl+Shift+V always, Ctrl+C copies when text is selected
    // (otherwise it is the shell's interrupt), Ctrl+V / Cmd+V use the browser's own paste.
    term.attachCustomKeyEventHandler((event) => {
      if (event.type !== 'keydown') return true;
      const mod = event.ctrlKey || event.metaKey;
      const key = event.key.toLowerCase();
      if (mod && key === 'c' && (event.shiftKey || (term.hasSelection() && !event.altKey))) {
        const selection = term.getSelection();
        if (selection) void navigator.clipboard?.writeText(selection).catch(() => undefined);
        event.preventDefault();
        return false;
      }
      if (mod && event.shiftKey && key === 'v') {
        event.preventDefault();
        void navigator.clipboard
          ?.readText()
          .then((text) => term.paste(text))
          .catch(() => undefined);
        return false;
      }
      if (mod && !event.shiftKey && key === 'v') return false; // the paste event follows
      // The IDE's own shortcuts (views, terminal panel) reach the page instead of the shell.
      if (event.ctrlKey && event.shiftKey && (key === 'e' || key === 'g')) return false;
      if (event.ctrlKey && (event.code === 'Backquote' || key === '`')) return false;
      return true;
    });
    const input = term.onData((data) => socket.send(data));
    const binary = term.onBinary((data) => {
      const bytes = new Uint8Array(data.length);
      for (let i = 0; i < data.length; i++) bytes[i] = data.charCodeAt(i) & 0xff;
      socket.send(bytes);
    });
    const title = term.onTitleChange((value) => callbacks.current.onTitle?.(value));

    const resize = () => {
      if (!host.offsetParent || host.clientWidth === 0 || host.clientHeight === 0) return; // hidden tab
      try {
        fit.fit();
      } catch {
        return;
      }
      socket.resize(term.cols, term.rows);
    };
    let frame = 0;
    const observer = new ResizeObserver(() => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(resize);
    });
    observer.observe(host);
    resize();
    socket.connect();
    const online = () => socket.reconnectNow();
    window.addEventListener('online', online);

    return () => {
      window.removeEventListener('online', online);
      cancelAnimationFrame(frame);
      observer.disconnect();
      input.dispose();
      binary.dispose();
      title.dispose();
      socket.close();
      term.dispose();
      termRef.current = null;
      fitRef.current = null;
      socketRef.current = null;
    };
  }, [sandboxId, sessionId]);

  useEffect(() => {
    if (termRef.current) termRef.current.options.theme = THEMES[theme];
  }, [theme]);

  useEffect(() => {
    if (!active) return;
    const term = termRef.current;
    const fit = fitRef.current;
    const frame = requestAnimationFrame(() => {
      try {
        fit?.fit();
        if (term) socketRef.current?.resize(term.cols, term.rows);
      } catch {
        // not laid out yet
      }
      term?.focus();
    });
    return () => cancelAnimationFrame(frame);
  }, [active]);

  return (
    <div
      className="terminal-view"
      style={{ display: active ? 'block' : 'none' }}
      data-testid={active ? 'terminal' : `terminal-${sessionId}`}
      data-session={sessionId}
      data-status={status.status}
    >
      <div ref={hostRef} className="terminal-host" />
      {(status.status === 'reconnecting' || status.status === 'closed') && (
        <div className={`terminal-banner ${status.status}`} role="status">
          {status.status === 'reconnecting' ? 'Connection lost; reconnecting…' : `Disconnected: ${status.detail ?? ''}`}
        </div>
      )}
    </div>
  );
}
