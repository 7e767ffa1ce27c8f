/**
 * A reader for the tar streams GNU tar writes (ustar with GNU long-name entries, and pax
 * headers). Reads of several files come out of the sandbox as one tar stream: every file is
 * framed by its header's size, so the bytes stay exact whatever the files contain, and a file
 * that changes while it is read cannot shift the files after it.
 */
export interface TarEntry {
  name: string;
  /** Type flag: '0' regular file, '5' directory, '2' symlink… */
  type: string;
  size: number;
  data: Buffer;
}

const BLOCK = 512;

function text(block: Buffer, start: number, length: number): string {
  const field = block.subarray(start, start + length);
  const end = field.indexOf(0);
  return field.subarray(0, end < 0 ? field.length : end).toString('utf8');
}

function numeric(block: Buffer, start: number, length: number): number {
  const field = block.subarray(start, start + length);
  if (field[0] & 0x80) {
    // GNU base-256: big-endian binary after the marker bit.
    let value = field[0] & 0x7f;
    for (let i = 1; i < field.length; i++) value = value * 256 + field[i];
    return value;
  }
  const digits = field.toString('latin1').replace(/\0.*$/s, '').trim();
  return digits === '' ? 0 : parseInt(digits, 8);
}

function isZeroBlock(block: Buffer): boolean {
  for (let i = 0; i < block.length; i++) if (block[i] !== 0) return false;
  return true;
}

/** `"27 path=some/name\n"` records of a pax extended header. */
function paxRecords(data: Buffer): Map<string, string> {
  const records = new Map<string, string>();
  let position = 0;
  while (position < data.length) {
    const space = data.indexOf(0x20, position);
    if (space < 0) break;
    const length = Number(data.subarray(position, space).toString('latin1'));
    if (!Number.isInteger(length) || length <= 0) break;
    const record = data.subarray(space + 1, position + length - 1).toString('utf8');
    const equals = record.indexOf('=');
    if (equals > 0) records.set(record.slice(0, equals), record.slice(equals + 1));
    position += length;
  }
  return records;
}

/** Every entry in order. Throws when the stream ends inside an entry (it was cut short). */
export function parseTar(stream: Buffer): TarEntry[] {
  const entries: TarEntry[] = [];
  let position = 0;
  let longName: string | null = null;
  let pax: Map<string, string> | null = null;
  while (position + BLOCK <= stream.length) {
    const header = stream.subarray(position, position + BLOCK);
    if (isZeroBlock(header)) break;
    const type = String.fromCharCode(header[156] || 0x30);
    let size = numeric(header, 124, 12);
    if (pax?.has('size')) size = Number(pax.get('size'));
    const dataStart = position + BLOCK;
    if (dataStart + size > stream.length) throw new Error('tar stream is truncated');
    const data = stream.subarray(dataStart, dataStart + size);
    position = dataStart + Math.ceil(size / BLOCK) * BLOCK;
    if (type === 'L') {
      longName = data.toString('utf8').replace(/\0+$/, '');
      continue;
    }
    if (type === 'x') {
      pax = paxRecords(data);
      continue;
    }
    if (type === 'g' || type === 'K') continue;
    const magic = header.subarray(257, 262).toString('latin1');
    const prefix = magic === 'ustar' ? text(header, 345, 155) : '';
    const name = pax?.get('path') ?? longName ?? (prefix ? `${prefix}/${text(header, 0, 100)}` : text(header, 0, 100));
    entries.push({ name, type, size, data });
    longName = null;
    pax = null;
  }
  return entries;
}
