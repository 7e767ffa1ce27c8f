import { describe, expect, it } from 'vitest';
import { redact } from './redact';

describe('redact', () => {
  it('removes every occurrence of a secret and of its percent-encoded form', () => {
    const secret = 'p@ss word/1';
    const text = `fatal: bad ${secret} and ${encodeURIComponent(secret)} and ${secret}`;
    const out = redact(text, [secret]);
    expect(out).not.toContain(secret);
    expect(out).not.toContain(encodeURIComponent(secret));
    expect(out).toBe('fatal: bad *** and *** and ***');
  });

  it('removes the user-info of URLs even without a known secret', () => {
    expect(redact("fatal: unable to access 'https://bob:hunter2@example.org/r.git/'", [])).toBe(
      "fatal: unable to access 'https://***@example.org/r.git/'",
    );
    expect(redact('remote: https://ghp_abc@github.com/o/r', [])).toBe('remote: https://***@github.com/o/r');
  });

  it('removes a longer secret whole even when it contains a shorter one', () => {
    expect(redact('token=abcdef', ['abc', 'abcdef'])).toBe('token=***');
  });

  it('leaves text without secrets alone and ignores empty secrets', () => {
    const text = 'Cloning into /workspace/repo...\ndone.\n';
    expect(redact(text, ['', 'nothere'])).toBe(text);
  });
});
