'use client';

import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';

// ---- toasts ---------------------------------------------------------------------------------

type ToastKind = 'error' | 'info' | 'success';
interface Toast {
  id: number;
  kind: ToastKind;
  message: string;
}

export interface ToastApi {
  error(message: string): void;
  info(message: string): void;
  success(message: string): void;
}

// ---- dialogs --------------------------------------------------------------------------------

export interface ConfirmOptions {
  title: string;
  message?: ReactNode;
  confirmLabel?: string;
  danger?: boolean;
}

export interface PromptOptions {
  title: string;
  label?: string;
  defaultValue?: string;
  placeholder?: string;
  confirmLabel?: string;
  /** An error text, or null when the value is acceptable. */
  validate?: (value: string) => string | null;
}

export interface DialogApi {
  confirm(options: ConfirmOptions): Promise<boolean>;
  prompt(options: PromptOptions): Promise<string | null>;
}

type OpenDialog =
  | { kind: 'confirm'; options: ConfirmOptions; resolve: (value: boolean) => void }
  | { kind: 'prompt'; options: PromptOptions; resolve: (value: string | null) => void };

const ToastContext = createContext<ToastApi | null>(null);
const DialogContext = createContext<DialogApi | null>(null);

export function useToast(): ToastApi {
  const context = useContext(ToastContext);
  if (!context) throw new Error('useToast outside <FeedbackProvider>');
  return context;
}

export function useDialogs(): DialogApi {
  const context = useContext(DialogContext);
  if (!context) throw new Error('useDialogs outside <FeedbackProvider>');
  return context;
}

/** Toasts (errors from the API, confirmations) and modal confirm/prompt dialogs for every page. */
export function FeedbackProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const [dialog, setDialog] = useState<OpenDialog | null>(null);
  const nextId = useRef(1);

  const dismiss = useCallback((id: number) => setToasts((list) => list.filter((t) => t.id !== id)), []);
  const push = useCallback(
    (kind: ToastKind, message: string) => {
      const id = nextId.current++;
      setToasts((list) => [...list.slice(-4), { id, kind, message }]);
      setTimeout(() => dismiss(id), kind === 'error' ? 8000 : 4000);
    },
    [dismiss],
  );
  const toastApi = useMemo<ToastApi>(
    () => ({
      error: (message) => push('error', message),
      info: (message) => push('info', message),
      success: (message) => push('success', message),
    }),
    [push],
  );
  const dialogApi = useMemo<DialogApi>(
    () => ({
      confirm: (options) => new Promise((resolve) => setDialog({ kind: 'confirm', options, resolve })),
      prompt: (options) => new Promise((resolve) => setDialog({ kind: 'prompt', options, resolve })),
    }),
    [],
  );

  return (
    <ToastContext.Provider value={toastApi}>
      <DialogContext.Provider value={dialogApi}>
        {children}
        {dialog && <DialogView dialog={dialog} onDone={() => setDialog(null)} />}
        <div className="toasts" role="status" aria-live="polite">
          {toasts.map((toast) => (
            <div key={toast.id} className={`toast toast-${toast.kind}`} data-testid={`toast-${toast.kind}`}>
              <span>{toast.message}</span>
              <button className="icon-button" aria-label="Dismiss" onClick={() => dismiss(toast.id)}>
                ×
              </button>
            </div>
          ))}
        </div>
      </DialogContext.Provider>
    </ToastContext.Provider>
  );
}

function DialogView({ dialog, onDone }: { dialog: OpenDialog; onDone: () => void }) {
  const [value, setValue] = useState(dialog.kind === 'prompt' ? (dialog.options.defaultValue ?? '') : '');
  const [touched, setTouched] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const error = dialog.kind === 'prompt' && touched ? (dialog.options.validate?.(value) ?? null) : null;

  useEffect(() => {
    if (dialog.kind === 'prompt') {
      const input = inputRef.current;
      input?.focus();
      // Select the name without its extension, like file managers do.
      const dot = (dialog.options.defaultValue ?? '').lastIndexOf('.');
      if (input && dot > 0) input.setSelectionRange(0, dot);
      else input?.select();
    } else confirmRef.current?.focus();
  }, [dialog]);

  const cancel = () => {
    if (dialog.kind === 'confirm') dialog.resolve(false);
    else dialog.resolve(null);
    onDone();
  };
  const accept = () => {
    if (dialog.kind === 'confirm') {
      dialog.resolve(true);
      onDone();
      return;
    }
    setTouched(true);
    if (dialog.options.validate?.(value)) return;
    dialog.resolve(value.trim());
    onDone();
  };

  return (
    <div className="modal-backdrop" onMouseDown={(event) => event.target === event.currentTarget && cancel()}>
      <form
        className="modal"
        role="dialog"
        aria-modal="true"
        aria-label={dialog.options.title}
        data-testid="dialog"
        onSubmit={(event) => {
          event.preventDefault();
          accept();
        }}
        onKeyDown={(event) => {
          if (event.key === 'Escape') {
            event.preventDefault();
            cancel();
          }
        }}
      >
        <h2>{dialog.options.title}</h2>
        {dialog.kind === 'confirm' && dialog.options.message && (
          <div className="modal-body">{dialog.options.message}</div>
        )}
        {dialog.kind === 'prompt' && (
          <label className="field">
            {dialog.options.label && <span>{dialog.options.label}</span>}
            <input
              ref={inputRef}
              data-testid="dialog-input"
              value={value}
              placeholder={dialog.options.placeholder}
              onChange={(event) => {
                setValue(event.target.value);
                setTouched(true);
              }}
              spellCheck={false}
              autoComplete="off"
            />
            {error && <span className="field-error">{error}</span>}
          </label>
        )}
        <div className="modal-actions">
          <button type="button" className="button" onClick={cancel} data-testid="dialog-cancel">
            Cancel
          </button>
          <button
            ref={confirmRef}
            type="submit"
            className={`button ${dialog.kind === 'confirm' && dialog.options.danger ? 'button-danger' : 'button-primary'}`}
            data-testid="dialog-confirm"
          >
            {dialog.options.confirmLabel ?? 'OK'}
          </button>
        </div>
      </form>
    </div>
  );
}
