import { PayloadTooLarge, ValidationFailed } from '../errors';

/** Reads the request body, refusing it before buffering once it passes `limit` bytes. */
export async function readBody(request: Request, limit: number): Promise<Buffer> {
  const declared = Number(request.headers.get('content-length') ?? '');
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  if (!request.body) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let total = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(limit);
    }
    chunks.push(Buffer.from(value));
  }
  return Buffer.concat(chunks);
}

function tooLarge(limit: number): PayloadTooLarge {
  return new PayloadTooLarge(`Request body is larger than ${Math.round(limit / 1024 / 1024)} MiB`);
}

/**
 * JSON whatever the Content-Type says (existing clients send text/plain); an empty body is `{}`.
 */
export function parseJson(raw: Buffer): unknown {
  const text = raw.toString('utf8').trim();
  if (text === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ValidationFailed([{ field: 'body', error: 'is not valid JSON' }]);
  }
}
