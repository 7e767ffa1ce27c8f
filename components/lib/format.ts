/** Small formatting helpers shared by the dashboard and the IDE (no dependencies). */

/** "45 s", "12 min", "3 h 5 min", "2 d". */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s} s`;
  const minutes = Math.floor(s / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  return `${Math.floor(hours / 24)} d`;
}

/** Time left as a clock: "4:59", "1:02:03". */
export function formatClock(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

export function ageSeconds(createdAt: string, nowMs: number): number {
  const created = Date.parse(createdAt);
  return Number.isFinite(created) ? Math.max(0, (nowMs - created) / 1000) : 0;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/** Memory and disk are MiB on the wire. */
export function formatMib(mib: number): string {
  return mib >= 1024 && mib % 1024 === 0
    ? `${mib / 1024} GiB`
    : mib >= 1024
      ? `${(mib / 1024).toFixed(1)} GiB`
      : `${mib} MiB`;
}
