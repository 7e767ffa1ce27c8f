import { randomBytes } from 'node:crypto';
import { BadRequest } from '../../errors';

/**
 * multipart/form-data (RFC 7578) as browsers and undici write it. Names and file names are
 * quoted strings in which `"`, CR and LF are percent-encoded (`%22`, `%0D`, `%0A`), the
 * WHATWG rule; other characters, UTF-8 included, are sent as they are. Bodies are raw bytes.
 */
export interface MultipartPart {
  name: string;
  filename?: string;
  contentType?: string;
  data: Buffer;
}

export const MAX_PARTS = 10_000;

const CRLF = Buffer.from('\r\n');

function escapeQuoted(value: string): string {
  return value.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function unescapeQuoted(value: string): string {
  return value.replace(/%22/g, '"').replace(/%0D/gi, '\r').replace(/%0A/gi, '\n');
}

function newBoundary(): string {
  return `shoal-${randomBytes(18).toString('base64url')}`;
}

/** Encodes the parts; the boundary is random and checked against every body. */
export function encodeMultipart(
  parts: readonly MultipartPart[],
  boundary = newBoundary(),
): { body: Buffer; contentType: string } {
  while (parts.some((part) => part.data.includes(`--${boundary}`))) boundary = newBoundary();
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let disposition = `form-data; name="${escapeQuoted(part.name)}"`;
    if (part.filename !== undefined) disposition += `; filename="${escapeQuoted(part.filename)}"`;
    const head =
      `--${boundary}\r\nContent-Disposition: ${disposition}\r\n` +
      `Content-Type: ${part.contentType ?? 'application/octet-stream'}\r\n\r\n`;
    chunks.push(Buffer.from(head, 'utf8'), part.data, CRLF);
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** `boundary` from a Content-Type header, or null when it is not multipart/form-data. */
export function boundaryOf(contentType: string | null): string | null {
  if (!contentType) return null;
  const [type, ...params] = splitParameters(contentType);
  if (type.trim().toLowerCase() !== 'multipart/form-data') return null;
  for (const param of params) {
    const { key, value } = param;
    if (key === 'boundary' && value.length >= 1 && value.length <= 200) return value;
  }
  return null;
}

interface Parameter {
  key: string;
  value: string;
}

/**
 * `form-data; name="a;b"; filename=x` → ['form-data', {name: 'a;b'}, {filename: 'x'}]. A quoted
 * value ends at the next `"` (percent-escaped quotes, WHATWG); `key*=utf-8''…` is RFC 5987.
 */
function splitParameters(header: string): [string, ...Parameter[]] {
  const semicolon = header.indexOf(';');
  const head = semicolon < 0 ? header : header.slice(0, semicolon);
  const params: Parameter[] = [];
  let i = semicolon < 0 ? header.length : semicolon + 1;
  while (i < header.length) {
    while (header[i] === ' ' || header[i] === '\t' || header[i] === ';') i++;
    const equals = header.indexOf('=', i);
    if (equals < 0) break;
    const key = header.slice(i, equals).trim().toLowerCase();
    i = equals + 1;
    let value: string;
    if (header[i] === '"') {
      const close = header.indexOf('"', i + 1);
      const end = close < 0 ? header.length : close;
      value = unescapeQuoted(header.slice(i + 1, end));
      i = end + 1;
    } else {
      const next = header.indexOf(';', i);
      const end = next < 0 ? header.length : next;
      value = header.slice(i, end).trim();
      i = end;
    }
    if (key.endsWith('*')) {
      const match = /^([\w-]*)'[^']*'(.*)$/.exec(value);
      if (match) {
        try {
          value = decodeURIComponent(match[2]);
        } catch {
          value = match[2];
        }
      }
      params.push({ key: key.slice(0, -1), value });
    } else {
      params.push({ key, value });
    }
  }
  return [head, ...params];
}

/**
 * Decodes a multipart/form-data body. Scanning uses Buffer.indexOf for the delimiter, so the
 * work is linear in the body size; bodies may contain any bytes, CRLF and `--` included.
 */
export function decodeMultipart(body: Buffer, contentType: string | null): MultipartPart[] {
  const boundary = boundaryOf(contentType);
  if (!boundary) throw new BadRequest('Expected a multipart/form-data body with a boundary');
  const opening = Buffer.from(`--${boundary}`);
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  let position = body.indexOf(opening);
  if (position > 0) {
    // A preamble is allowed; the first delimiter then follows a CRLF.
    position = body.indexOf(delimiter);
    if (position >= 0) position += 2;
  }
  if (position < 0) throw new BadRequest('Multipart body has no opening boundary');
  position += opening.length;
  const parts: MultipartPart[] = [];
  for (;;) {
    if (body[position] === 0x2d && body[position + 1] === 0x2d) return parts; // closing `--`
    // Transport padding, then CRLF.
    while (body[position] === 0x20 || body[position] === 0x09) position++;
    if (body[position] === 0x0d && body[position + 1] === 0x0a) position += 2;
    else throw new BadRequest('Malformed multipart body: expected CRLF after a boundary');
    const headerEnd = body.indexOf('\r\n\r\n', position);
    if (headerEnd < 0) throw new BadRequest('Malformed multipart body: unterminated part headers');
    const headers = body.subarray(position, headerEnd).toString('utf8').split('\r\n');
    const dataStart = headerEnd + 4;
    const dataEnd = body.indexOf(delimiter, dataStart);
    if (dataEnd < 0) throw new BadRequest('Malformed multipart body: missing closing boundary');
    const part = partFromHeaders(headers, body.subarray(dataStart, dataEnd));
    if (part) parts.push(part);
    if (parts.length > MAX_PARTS) throw new BadRequest(`At most ${MAX_PARTS} parts are accepted`);
    position = dataEnd + delimiter.length;
  }
}

function partFromHeaders(lines: string[], data: Buffer): MultipartPart | null {
  let name: string | undefined;
  let filename: string | undefined;
  let contentType: string | undefined;
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const header = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (header === 'content-disposition') {
      const [type, ...params] = splitParameters(value);
      if (type.trim().toLowerCase() !== 'form-data') continue;
      for (const param of params) {
        if (param.key === 'name') name = param.value;
        else if (param.key === 'filename') filename = param.value;
      }
    } else if (header === 'content-type') {
      contentType = value;
    }
  }
  if (name === undefined) return null;
  return { name, filename, contentType, data };
}
