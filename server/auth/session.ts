import { getToken } from 'next-auth/jwt';

export interface SessionUser {
  userId: string;
  teamId: string;
  email: string;
}

export function parseCookies(header: string | null | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    try {
      cookies[name] = decodeURIComponent(value);
    } catch {
      cookies[name] = value;
    }
  }
  return cookies;
}

/** The signed-in user of a next-auth session cookie, or null. Works for HTTP and WebSocket upgrades alike. */
export async function sessionFromCookies(cookieHeader: string | null | undefined): Promise<SessionUser | null> {
  if (!cookieHeader || !process.env.NEXTAUTH_SECRET) return null;
  const cookies = parseCookies(cookieHeader);
  if (!Object.keys(cookies).some((name) => name.includes('next-auth.session-token'))) return null;
  const token = await getToken({
    req: { cookies, headers: {} } as unknown as Parameters<typeof getToken>[0]['req'],
    secret: process.env.NEXTAUTH_SECRET,
  }).catch(() => null);
  if (!token || typeof token.teamId !== 'string' || typeof token.sub !== 'string') return null;
  return { userId: token.sub, teamId: token.teamId, email: String(token.email ?? '') };
}
