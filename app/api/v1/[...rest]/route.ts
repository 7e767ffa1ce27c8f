import { json } from '@/server/http/responses';

/** Unknown API paths answer JSON like every other API error, not Next's HTML 404 page. */
function notFound(request: Request): Response {
  const path = new URL(request.url).pathname.replace(/^\/api/, '');
  return json({ message: `No route ${request.method} ${path}` }, 404);
}

export { notFound as GET, notFound as POST, notFound as PUT, notFound as DELETE, notFound as PATCH };
