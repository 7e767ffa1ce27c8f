'use client';

import { useCallback, useEffect, useState } from 'react';

/**
 * A draggable size (px) persisted in localStorage: the sidebar width or the terminal height.
 * `axis` x grows to the right, y grows upwards (the terminal sits at the bottom).
 */
export function useSplit(storageKey: string, initial: number, min: number, max: () => number, axis: 'x' | 'y') {
  const [size, setSize] = useState(initial);

  useEffect(() => {
    queueMicrotask(() => {
      const stored = Number(localStorage.getItem(storageKey));
      if (Number.isFinite(stored) && stored >= min) setSize(Math.min(stored, max()));
    });
  }, [storageKey, min, max]);

  const onPointerDown = useCallback(
    (event: React.PointerEvent<HTMLElement>) => {
      event.preventDefault();
      const handle = event.currentTarget;
      handle.setPointerCapture(event.pointerId);
      const start = axis === 'x' ? event.clientX : event.clientY;
      const startSize = size;
      let latest = startSize;
      document.body.classList.add(axis === 'x' ? 'resizing-x' : 'resizing-y');
      const move = (moveEvent: PointerEvent) => {
        const delta = (axis === 'x' ? moveEvent.clientX : moveEvent.clientY) - start;
        latest = Math.round(Math.min(max(), Math.max(min, axis === 'x' ? startSize + delta : startSize - delta)));
        setSize(latest);
      };
      const up = () => {
        handle.removeEventListener('pointermove', move);
        handle.removeEventListener('pointerup', up);
        handle.removeEventListener('pointercancel', up);
        document.body.classList.remove('resizing-x', 'resizing-y');
        try {
          localStorage.setItem(storageKey, String(latest));
        } catch {
          // not persisted
        }
      };
      handle.addEventListener('pointermove', move);
      handle.addEventListener('pointerup', up);
      handle.addEventListener('pointercancel', up);
    },
    [axis, max, min, size, storageKey],
  );

  /** Keyboard resizing for the splitter (arrow keys), for accessibility. */
  const onKeyDown = useCallback(
    (event: React.KeyboardEvent<HTMLElement>) => {
      const step = event.shiftKey ? 50 : 10;
      const grow = axis === 'x' ? event.key === 'ArrowRight' : event.key === 'ArrowUp';
      const shrink = axis === 'x' ? event.key === 'ArrowLeft' : event.key === 'ArrowDown';
      if (!grow && !shrink) return;
      event.preventDefault();
      setSize((current) => {
        const next = Math.min(max(), Math.max(min, current + (grow ? step : -step)));
        localStorage.setItem(storageKey, String(next));
        return next;
      });
    },
    [axis, max, min, storageKey],
  );

  return { size, setSize, onPointerDown, onKeyDown };
}

/** The draggable, keyboard-operable bar between two panes, driven by `useSplit`. */
export function Splitter({
  split,
  axis,
  label,
}: {
  split: Pick<ReturnType<typeof useSplit>, 'onPointerDown' | 'onKeyDown'>;
  axis: 'x' | 'y';
  label: string;
}) {
  return (
    <div
      className={`splitter splitter-${axis}`}
      role="separator"
      aria-orientation={axis === 'x' ? 'vertical' : 'horizontal'}
      aria-label={label}
      tabIndex={0}
      onPointerDown={split.onPointerDown}
      onKeyDown={split.onKeyDown}
    />
  );
}
