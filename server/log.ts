/**
 * One-line JSON logs on stderr. Only what callers pass is printed, and callers never pass
 * secrets; errors are reduced to name, message and stack.
 */
type Fields = Record<string, unknown>;

function serialise(fields: Fields): Fields {
  const out: Fields = {};
  for (const [key, value] of Object.entries(fields)) {
    out[key] = value instanceof Error ? { name: value.name, message: value.message, stack: value.stack } : value;
  }
  return out;
}

function write(level: 'info' | 'warn' | 'error', message: string, fields: Fields = {}): void {
  if (process.env.SHOAL_QUIET === '1' && level === 'info') return;
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level, message, ...serialise(fields) })}\n`);
}

export const log = {
  info: (message: string, fields?: Fields) => write('info', message, fields),
  warn: (message: string, fields?: Fields) => write('warn', message, fields),
  error: (message: string, fields?: Fields) => write('error', message, fields),
};
