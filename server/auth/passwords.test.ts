import { describe, expect, it } from 'vitest';
import { generatePassword, hashPassword, verifyPassword } from './passwords';

describe('passwords', () => {
  it('verifies the right password and refuses a wrong one', async () => {
    const stored = await hashPassword('correct horse');
    expect(stored).not.toContain('correct horse');
    expect(await verifyPassword('correct horse', stored)).toBe(true);
    expect(await verifyPassword('correct horsf', stored)).toBe(false);
  });

  it('salts every hash', async () => {
    expect(await hashPassword('same')).not.toBe(await hashPassword('same'));
  });

  it('refuses malformed stored hashes instead of throwing', async () => {
    expect(await verifyPassword('x', 'plain')).toBe(false);
  });

  it('generates distinct passwords', () => {
    expect(generatePassword()).not.toBe(generatePassword());
    expect(generatePassword().length).toBeGreaterThanOrEqual(20);
  });
});
