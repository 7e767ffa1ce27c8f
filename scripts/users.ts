/**
 * `npm run users -- set-password <email> [password]`: sets a user's password in the data dir
 * (SHOAL_DATA_DIR, default ./.data), e.g. when the admin password printed at first start is
 * lost. Without a password argument a new one is generated and printed.
 */
import { generatePassword, hashPassword } from '../server/auth/passwords';
import { loadConfig } from '../server/config';
import { createStore } from '../server/store';

async function main(): Promise<number> {
  const [command, email, given] = process.argv.slice(2);
  if (command !== 'set-password' || !email) {
    process.stderr.write('usage: npm run users -- set-password <email> [password]\n');
    return 2;
  }
  if (given !== undefined && given.length < 8) {
    process.stderr.write('The password must have at least 8 characters.\n');
    return 2;
  }
  const store = createStore(loadConfig().dataDir);
  try {
    const user = store.users.byEmail(email);
    if (!user) {
      process.stderr.write(`No user '${email}' in ${loadConfig().dataDir}.\n`);
      return 1;
    }
    const password = given ?? generatePassword();
    store.users.setPasswordHash(user.id, await hashPassword(password));
    process.stdout.write(given ? `Password of ${email} changed.\n` : `New password of ${email}: ${password}\n`);
    return 0;
  } finally {
    store.db.close();
  }
}

main().then((code) => process.exit(code));
