import type { NextAuthOptions } from 'next-auth';
import CredentialsProvider from 'next-auth/providers/credentials';
import { log } from '../log';
import { getStore } from '../store';
import { verifyPassword } from './passwords';

/** What `authorize` returns and the JWT carries; `server/auth/session.ts` reads `sub` and `teamId`. */
interface ShoalUser {
  id: string;
  email: string;
  teamId: string;
}

/** Checks an e-mail and password against the users table; null when either is wrong. */
export async function authorizeCredentials(email: unknown, password: unknown): Promise<ShoalUser | null> {
  if (typeof email !== 'string' || typeof password !== 'string' || !email || !password) return null;
  if (email.length > 320 || password.length > 1024) return null;
  const user = getStore().users.byEmail(email.trim());
  if (!user) return null;
  if (!(await verifyPassword(password, user.password_hash))) return null;
  return { id: user.id, email: user.email, teamId: user.team_id };
}

/**
 * next-auth v4 with the Credentials provider and JWT sessions. `NEXTAUTH_SECRET` and
 * `AUTH_TRUST_HOST` are set by `server/index.ts` before Next starts.
 */
export const authOptions: NextAuthOptions = {
  providers: [
    CredentialsProvider({
      name: 'Email and password',
      credentials: {
        email: { label: 'Email', type: 'email' },
        password: { label: 'Password', type: 'password' },
      },
      async authorize(credentials) {
        const user = await authorizeCredentials(credentials?.email, credentials?.password);
        // The address is not a secret, but a failed attempt is worth a line; the password never is logged.
        if (!user) log.warn('sign-in refused', { email: String(credentials?.email ?? '').slice(0, 320) });
        return user;
      },
    }),
  ],
  session: { strategy: 'jwt', maxAge: 7 * 24 * 60 * 60 },
  pages: { signIn: '/login' },
  callbacks: {
    jwt({ token, user }) {
      if (user) {
        const shoalUser = user as unknown as ShoalUser;
        token.sub = shoalUser.id;
        token.email = shoalUser.email;
        token.teamId = shoalUser.teamId;
      }
      return token;
    },
    session({ session, token }) {
      return {
        ...session,
        user: { ...session.user, email: typeof token.email === 'string' ? token.email : session.user?.email },
      };
    },
  },
  logger: {
    error: (code) => log.error('next-auth error', { code }),
    warn: (code) => log.warn('next-auth warning', { code }),
    debug: () => undefined,
  },
};
