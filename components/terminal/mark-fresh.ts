/**
 * The dashboard marks a sandbox it has just restored before opening it, so the terminal panel
 * creates the first shell at once instead of first asking for shells to re-attach (there are
 * none yet). A tiny module of its own: the dashboard must not pull in the terminal code.
 */
const key = (sandboxId: string) => `shoal.fresh.${sandboxId}`;

export function markFreshSandbox(sandboxId: string): void {
  try {
    sessionStorage.setItem(key(sandboxId), '1');
  } catch {
    // the panel then lists sessions first, which is only slower
  }
}

/** Reads and clears the mark: only the first load after the restore counts. */
export function takeFreshMark(sandboxId: string): boolean {
  try {
    const fresh = sessionStorage.getItem(key(sandboxId)) === '1';
    sessionStorage.removeItem(key(sandboxId));
    return fresh;
  } catch {
    return false;
  }
}
