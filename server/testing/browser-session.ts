import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { encode } from 'next-auth/jwt';
import type { ShoalServer } from './shoal-server';

/**
 * A `Cookie` header value for the server's first user, as the browser holds it after signing in:
 * a next-auth session JWT signed with the server's own secret (`<dataDir>/auth-secret`). Lets a
 * test speak as the IDE without driving the sign-in page.
 */
export async function browserSessionCookie(server: ShoalServer): Promise<string> {
  const db = new Database(path.join(server.dataDir, 'shoal.db'), { readonly: true, fileMustExist: true });
  const user = db.prepare('SELECT id, team_id, email FROM users LIMIT 1').get() as {
    id: string;
    team_id: string;
    email: string;
  };
  db.close();
  const secret = fs.readFileSync(path.join(server.dataDir, 'auth-secret'), 'utf8').trim();
  const token = await encode({ token: { sub: user.id, teamId: user.team_id, email: user.email }, secret });
  return `next-auth.session-token=${token}`;
}
