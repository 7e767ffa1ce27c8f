import { describe, expect, it } from 'vitest';
import { normaliseApiPath } from './api-path';

describe('normaliseApiPath', () => {
  it('maps /v1 onto /api/v1 and keeps the query', () => {
    expect(normaliseApiPath('/v1/sandboxes?page=2')).toBe('/api/v1/sandboxes?page=2');
  });
  it('drops a trailing slash on both prefixes', () => {
    expect(normaliseApiPath('/v1/sandbox/sbx-abc/')).toBe('/api/v1/sandbox/sbx-abc');
    expect(normaliseApiPath('/api/v1/sandbox/sbx-abc/?x=1')).toBe('/api/v1/sandbox/sbx-abc?x=1');
  });
  it('leaves pages and other paths alone', () => {
    expect(normaliseApiPath('/login/')).toBe('/login/');
    expect(normaliseApiPath('/v10/x')).toBe('/v10/x');
    expect(normaliseApiPath('/api/auth/session')).toBe('/api/auth/session');
  });
});
