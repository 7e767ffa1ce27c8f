/** Decides how the editor shows a file: as text, read-only (large), or not at all (binary). */

/** Files above this are opened read-only (and only their start is read). */
export const LARGE_FILE_BYTES = 2 * 1024 * 1024;

/** Binary when a NUL byte appears early or the bytes are not valid UTF-8. */
export function isBinary(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 8000);
  if (head.includes(0)) return true;
  try {
    // A multi-byte character cut at the end of a truncated read is not binary: ignore the tail.
    new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, Math.max(0, bytes.length - 3)));
    return false;
  } catch {
    return true;
  }
}

export function decodeText(bytes: Uint8Array): string {
  return new TextDecoder('utf-8').decode(bytes);
}

const LANGUAGE_BY_EXTENSION: Record<string, string> = {
  ts: 'typescript',
  tsx: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  js: 'javascript',
  jsx: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  json: 'json',
  jsonc: 'json',
  md: 'markdown',
  markdown: 'markdown',
  py: 'python',
  rb: 'ruby',
  go: 'go',
  rs: 'rust',
  java: 'java',
  kt: 'kotlin',
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  hpp: 'cpp',
  cs: 'csharp',
  php: 'php',
  sh: 'shell',
  bash: 'shell',
  zsh: 'shell',
  yml: 'yaml',
  yaml: 'yaml',
  toml: 'ini',
  ini: 'ini',
  cfg: 'ini',
  html: 'html',
  htm: 'html',
  xml: 'xml',
  svg: 'xml',
  css: 'css',
  scss: 'scss',
  less: 'less',
  sql: 'sql',
  swift: 'swift',
  lua: 'lua',
  r: 'r',
  pl: 'perl',
  dockerfile: 'dockerfile',
  graphql: 'graphql',
  vue: 'html',
};

const LANGUAGE_BY_NAME: Record<string, string> = {
  dockerfile: 'dockerfile',
  makefile: 'shell',
  '.bashrc': 'shell',
  '.profile': 'shell',
  '.gitignore': 'ini',
  '.env': 'ini',
};

/** Monaco's language id for a file name; plaintext when unknown. */
export function languageFor(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1).toLowerCase();
  if (LANGUAGE_BY_NAME[name]) return LANGUAGE_BY_NAME[name];
  const dot = name.lastIndexOf('.');
  if (dot < 0) return 'plaintext';
  return LANGUAGE_BY_EXTENSION[name.slice(dot + 1)] ?? 'plaintext';
}
