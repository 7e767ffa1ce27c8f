import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { sessionFromCookies, type SessionUser } from './session';

/**
 * For server-rendered pages: the signed-in user, or a redirect to the sign-in page. Reads the
 * same next-auth cookie the API routes accept, so a page and its API calls agree on who is in.
 */
export async function requireUser(): Promise<SessionUser> {
  const user = await sessionFromCookies((await headers()).get('cookie'));
  if (!user) redirect('/login');
  return user;
}

/** The signed-in user or null, without redirecting (the sign-in page itself). */
export async function currentUser(): Promise<SessionUser | null> {
  return sessionFromCookies((await headers()).get('cookie'));
}
