'use client';

import { useSyncExternalStore } from 'react';
import { Icon } from './icons';

export type Theme = 'dark' | 'light';
const STORAGE_KEY = 'shoal.theme';

/** Runs before the page paints (inlined in the layout) so the stored theme never flashes. */
export const THEME_BOOT_SCRIPT = `try{var t=localStorage.getItem('${STORAGE_KEY}');document.documentElement.dataset.theme=t==='light'?'light':'dark'}catch(e){}`;

function read(): Theme {
  return document.documentElement.dataset.theme === 'light' ? 'light' : 'dark';
}

function subscribe(onChange: () => void): () => void {
  const observer = new MutationObserver(onChange);
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
  return () => observer.disconnect();
}

export function setTheme(theme: Theme): void {
  document.documentElement.dataset.theme = theme;
  try {
    localStorage.setItem(STORAGE_KEY, theme);
  } catch {
    // private mode: the choice lasts for this page only
  }
}

/** The current theme; dark on the server and by default. */
export function useTheme(): Theme {
  return useSyncExternalStore(subscribe, read, () => 'dark');
}

export function ThemeToggle() {
  const theme = useTheme();
  const next = theme === 'dark' ? 'light' : 'dark';
  return (
    <button
      className="icon-button"
      title={`Switch to the ${next} theme`}
      aria-label={`Switch to the ${next} theme`}
      onClick={() => setTheme(next)}
      data-testid="theme-toggle"
    >
      <Icon name={theme === 'dark' ? 'moon' : 'sun'} />
    </button>
  );
}
