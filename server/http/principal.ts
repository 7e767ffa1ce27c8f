import { Unauthenticated } from '../errors';
import { apiKeyService } from '../services';
import { sessionFromCookies } from '../auth/session';

/** Who is calling: an API key or a browser session, always on behalf of one team. */
export interface Principal {
  teamId: string;
  kind: 'api-key' | 'session';
  /** Rate limits and logs use this; never the key itself. */
  subject: string;
  userId?: string;
}

/** The accepted key headers, in order; the value may carry a `Bearer ` prefix. */
export const KEY_HEADERS = ['authorization', 'shoal-authorization', 'leap0-authorization'] as const;

export function keyFromHeaders(get: (name: string) => string | null | undefined): string | null {
  for (const name of KEY_HEADERS) {
    const value = get(name)?.trim();
    if (value) return value.replace(/^Bearer\s+/i, '').trim();
  }
  return null;
}

/** API key first; otherwise the next-auth session cookie. Throws Unauthenticated. */
export async function authenticate(get: (name: string) => string | null | undefined): Promise<Principal> {
  const key = keyFromHeaders(get);
  if (key) {
    const record = apiKeyService().verify(key);
    if (!record) throw new Unauthenticated();
    return { teamId: record.team_id, kind: 'api-key', subject: record.id };
  }
  const session = await sessionFromCookies(get('cookie'));
  if (session) return { teamId: session.teamId, kind: 'session', subject: session.userId, userId: session.userId };
  throw new Unauthenticated();
}
