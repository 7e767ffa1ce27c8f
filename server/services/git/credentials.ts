/**
 * Clone/push/pull credentials reach git through a one-shot credential helper given on the
 * command line (`git -c credential.helper=…`, which is never written to any config file).
 * The helper is a constant script that reads the secret from the environment of this one exec,
 * so the secret is neither in argv (visible in `ps`) nor on disk, nor in the URL.
 */
export interface GitCredentials {
  username?: string;
  password?: string;
}

export const USERNAME_ENV = 'SHOAL_GIT_USERNAME';
export const PASSWORD_ENV = 'SHOAL_GIT_PASSWORD';

/**
 * Used when only a password (token) is given: hosting services accept any non-empty user name
 * with a token, and git would otherwise ask for one (and fail: prompts are off).
 */
export const DEFAULT_TOKEN_USERNAME = 'git';

/**
 * git runs `!`-helpers through the shell with the operation appended (`… get`). Only `get`
 * answers; `store`/`erase` are ignored, so nothing is ever saved. printf, not echo: dash's echo
 * would interpret backslashes in the password.
 */
export const CREDENTIAL_HELPER =
  '!f() { test "$1" = get || return 0; ' +
  `printf 'username=%s\\n' "$${USERNAME_ENV}"; ` +
  `test -z "$${PASSWORD_ENV}" || printf 'password=%s\\n' "$${PASSWORD_ENV}"; }; f`;

export interface CredentialArgs {
  /** Global git options, placed before the sub-command. */
  args: string[];
  env: Record<string, string>;
  /** Text to redact from the output. */
  secrets: string[];
}

export function credentialArgs(credentials: GitCredentials): CredentialArgs {
  const { username, password } = credentials;
  if (!username && !password) return { args: [], env: {}, secrets: [] };
  const user = username || DEFAULT_TOKEN_USERNAME;
  const secrets = password ? [password, Buffer.from(`${user}:${password}`).toString('base64')] : [];
  return {
    // The empty value resets helpers configured in the sandbox, so ours is the only one asked.
    args: ['-c', 'credential.helper=', '-c', `credential.helper=${CREDENTIAL_HELPER}`],
    env: { [USERNAME_ENV]: user, [PASSWORD_ENV]: password ?? '' },
    secrets,
  };
}
