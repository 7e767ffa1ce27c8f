/**
 * Which clone URLs Shoal hands to git. Pure string logic, shared by the request schema (400 on a
 * refused URL) and the git service (which strips credentials out of the URL).
 *
 * Accepted:
 *   - `https://`, `http://`, `ssh://` and `git://` URLs (scheme case-insensitive);
 *   - the scp-like ssh form `[user@]host:path` (`git@github.com:org/repo.git`), which git itself
 *     treats as ssh; real clients send it, and it cannot name another transport.
 * Refused (400): every other scheme (`file://`, `ftp://`…), remote-helper syntax (`ext::…`,
 * `fd::…`), plain local paths, control characters, and a host, user or path starting with `-`
 * (ssh option injection).
 *
 * The same transports are pinned again when git runs (`-c protocol.allow=never` plus an allow for
 * each of the four), so redirects and submodules cannot switch to another one.
 */
export const ALLOWED_SCHEMES = ['https', 'http', 'ssh', 'git'] as const;

export interface ParsedCloneUrl {
  /** The URL as git receives it: without user name or password for http(s). */
  url: string;
  scheme: (typeof ALLOWED_SCHEMES)[number];
  /** Credentials that were embedded in an http(s) URL; they reach git through the credential helper. */
  username?: string;
  password?: string;
}

export type CloneUrlCheck = { ok: true; value: ParsedCloneUrl } | { ok: false; error: string };

const MAX_URL_LENGTH = 8192;
const SCHEME_URL_RE = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(.*)$/s;
/** git's own test for `<transport>::<address>`: scheme characters, then `::`. */
const HELPER_RE = /^[A-Za-z0-9+.-]+::/;
/** `[user@]host:path` where the host has no `/` (git's scp-like rule); an IPv6 host is bracketed. */
const SCP_RE = /^(?:([^@/:[\]]+)@)?([A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\]):(.*)$/s;
const CONTROL_RE = /[\u0000-\u001f\u007f]/;

function refuse(error: string): CloneUrlCheck {
  return { ok: false, error };
}

function decode(part: string): string | null {
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}

export function checkCloneUrl(raw: string): CloneUrlCheck {
  if (raw.length === 0) return refuse('must not be empty');
  if (raw.length > MAX_URL_LENGTH) return refuse(`must be at most ${MAX_URL_LENGTH} characters`);
  if (CONTROL_RE.test(raw)) return refuse('must not contain control characters');
  if (raw.startsWith('-')) return refuse('must not start with "-"');
  if (HELPER_RE.test(raw)) {
    return refuse('remote helper URLs (such as ext::) are not allowed; use an https, http, ssh or git URL');
  }

  const schemed = SCHEME_URL_RE.exec(raw);
  if (schemed) {
    const scheme = schemed[1].toLowerCase();
    if (!(ALLOWED_SCHEMES as readonly string[]).includes(scheme)) {
      return refuse(`scheme '${scheme}' is not allowed; use https, http, ssh or git`);
    }
    const rest = schemed[2];
    const authorityEnd = rest.search(/[/?#]/);
    const authority = authorityEnd === -1 ? rest : rest.slice(0, authorityEnd);
    const tail = authorityEnd === -1 ? '' : rest.slice(authorityEnd);
    const at = authority.lastIndexOf('@');
    const userinfo = at === -1 ? undefined : authority.slice(0, at);
    const hostPort = at === -1 ? authority : authority.slice(at + 1);
    if (hostPort.length === 0 || hostPort.startsWith(':')) return refuse('must name a host');
    if (hostPort.startsWith('-')) return refuse('the host must not start with "-"');
    if (/\s/.test(hostPort)) return refuse('the host must not contain spaces');

    let username: string | undefined;
    let password: string | undefined;
    if (userinfo !== undefined) {
      const colon = userinfo.indexOf(':');
      const rawUser = colon === -1 ? userinfo : userinfo.slice(0, colon);
      const rawPassword = colon === -1 ? undefined : userinfo.slice(colon + 1);
      const user = decode(rawUser);
      const pass = rawPassword === undefined ? undefined : decode(rawPassword);
      if (user === null || pass === null) return refuse('the user name or password is not valid percent-encoding');
      if (user.startsWith('-')) return refuse('the user name must not start with "-"');
      username = user || undefined;
      password = pass || undefined;
    }

    const typed = scheme as ParsedCloneUrl['scheme'];
    if (typed === 'http' || typed === 'https') {
      // Credentials never stay in the URL: git would write it into .git/config.
      return { ok: true, value: { url: `${scheme}://${hostPort}${tail}`, scheme: typed, username, password } };
    }
    if (password !== undefined) {
      return refuse(`${scheme} URLs must not carry a password; use the username and password fields of an https URL`);
    }
    return { ok: true, value: { url: raw, scheme: typed } };
  }

  const scp = SCP_RE.exec(raw);
  if (scp) {
    const [, user, host, path] = scp;
    if (user?.startsWith('-') || host.startsWith('-')) return refuse('the user and host must not start with "-"');
    if (path.length === 0 || path.startsWith('-'))
      return refuse('the repository path must not be empty or start with "-"');
    return { ok: true, value: { url: raw, scheme: 'ssh' } };
  }

  return refuse('local paths are not allowed; use an https, http, ssh or git URL');
}
