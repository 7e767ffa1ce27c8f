'use client';

import { useEffect, useRef } from 'react';

/**
 * Runs `callback` now (on the next tick) and every `intervalMs` while mounted; a new interval
 * or callback restarts the cycle. `intervalMs` null pauses it.
 */
export function usePolling(callback: () => unknown, intervalMs: number | null): void {
  const latest = useRef(callback);

  useEffect(() => {
    latest.current = callback;
  }, [callback]);

  useEffect(() => {
    if (intervalMs === null) return;
    const first = setTimeout(() => void latest.current(), 0);
    const timer = setInterval(() => void latest.current(), intervalMs);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
    };
  }, [intervalMs, callback]);
}
