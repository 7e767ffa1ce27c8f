import { randomInt } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** `prefix-` followed by `length` random lowercase alphanumerics, e.g. `sbx-k3v9x0q2m1ab`. */
export function newId(prefix: string, length = 12): string {
  let suffix = '';
  for (let i = 0; i < length; i++) suffix += ALPHABET[randomInt(ALPHABET.length)];
  return `${prefix}-${suffix}`;
}

export function nowIso(): string {
  return new Date().toISOString();
}
