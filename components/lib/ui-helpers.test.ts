import { describe, expect, it } from 'vitest';
import { repoNameFromUrl } from '../git-panel/clone-dialog';
import { restoreBody } from '../snapshot-picker/snapshot-picker';
import { readableError } from './api-client';

describe('restore options', () => {
  it('sends the chosen timeout, auto-pause and network mode', () => {
    expect(
      restoreBody('debian-bookworm', {
        timeout: 900,
        autoPause: true,
        mode: 'deny-all',
        domains: 'x.com',
        openAfter: true,
      }),
    ).toEqual({
      snapshot_name: 'debian-bookworm',
      timeout: 900,
      auto_pause: true,
      network_policy: { mode: 'deny-all' },
    });
  });

  it('turns the domain list of a custom policy into allow_domains', () => {
    const body = restoreBody('s', {
      timeout: 300,
      autoPause: false,
      mode: 'custom',
      domains: 'github.com, *.npmjs.org\n pypi.org',
      openAfter: false,
    });
    expect(body.network_policy).toEqual({ mode: 'custom', allow_domains: ['github.com', '*.npmjs.org', 'pypi.org'] });
  });
});

describe('clone dialog', () => {
  it('derives the folder name from the URL', () => {
    expect(repoNameFromUrl('https://github.com/org/project.git')).toBe('project');
    expect(repoNameFromUrl('git@github.com:org/tool')).toBe('tool');
    expect(repoNameFromUrl('https://host/x/')).toBe('x');
  });
});

describe('API errors', () => {
  it('lists the failing fields of a validation error', () => {
    const error = readableError(400, {
      message: 'Invalid request',
      errors: [{ field: 'timeout', error: 'must be at most 28800' }],
    });
    expect(error.message).toBe('Invalid request: timeout must be at most 28800');
    expect(error.status).toBe(400);
  });

  it('falls back to the status when the body says nothing', () => {
    expect(readableError(502, null).message).toBe('Request failed (HTTP 502)');
    expect(readableError(429, { message: 'Sandbox limit reached' }).message).toMatch(/try again/);
  });
});
