/**
 * Removes credentials from text git printed before it leaves the server: every given secret
 * (and its percent-encoded form) and the user-info part of any `scheme://user:pass@host` URL.
 */
export const REDACTED = '***';

/** `scheme://<userinfo>@`: the user-info never contains `/`, `@` or white space. */
const URL_USERINFO_RE = /\b([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^\s/@]+@/g;

/** The forms in which a secret can show up in git's output or a URL. */
export function secretVariants(secret: string): string[] {
  if (!secret) return [];
  const variants = new Set([secret, encodeURIComponent(secret)]);
  return [...variants];
}

export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  // Longest first, so that a secret containing another is removed whole.
  const all = [...new Set(secrets.flatMap(secretVariants))].sort((a, b) => b.length - a.length);
  for (const secret of all) out = out.split(secret).join(REDACTED);
  return out.replace(URL_USERINFO_RE, `$1${REDACTED}@`);
}
