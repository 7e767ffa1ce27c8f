/**
 * API requests arrive as /v1/... (what existing clients use) or /api/v1/... (where the route
 * handlers live). Both map onto /api/v1/..., and a trailing slash is dropped instead of
 * redirected. Other paths are left alone.
 */
export function normaliseApiPath(url: string): string {
  const queryAt = url.indexOf('?');
  let pathname = queryAt === -1 ? url : url.slice(0, queryAt);
  const query = queryAt === -1 ? '' : url.slice(queryAt);
  if (pathname === '/v1' || pathname.startsWith('/v1/')) pathname = `/api${pathname}`;
  if (!pathname.startsWith('/api/v1/') && pathname !== '/api/v1') return url;
  if (pathname.length > 1 && pathname.endsWith('/')) pathname = pathname.replace(/\/+$/, '');
  return pathname + query;
}
