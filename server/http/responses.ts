export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });
}

export function noContent(): Response {
  return new Response(null, { status: 204 });
}

export function bytes(body: Buffer | Uint8Array, contentType = 'application/octet-stream', status = 200): Response {
  return new Response(body as unknown as BodyInit, { status, headers: { 'content-type': contentType } });
}
