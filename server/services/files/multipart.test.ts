import { describe, expect, it } from 'vitest';
import { boundaryOf, decodeMultipart, encodeMultipart } from './multipart';

const allBytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

describe('multipart encoding', () => {
  it('writes the documented part headers, in order, with raw bodies', () => {
    const { body, contentType } = encodeMultipart(
      [
        { name: '/workspace/a.txt', filename: 'a.txt', data: Buffer.from('hello') },
        { name: 'b.bin', filename: 'b.bin', data: allBytes },
      ],
      'XYZ',
    );
    expect(contentType).toBe('multipart/form-data; boundary=XYZ');
    const text = body.toString('latin1');
    expect(
      text.startsWith('--XYZ\r\nContent-Disposition: form-data; name="/workspace/a.txt"; filename="a.txt"\r\n'),
    ).toBe(true);
    expect(text).toContain('Content-Type: application/octet-stream\r\n\r\nhello\r\n--XYZ\r\n');
    expect(text.endsWith('\r\n--XYZ--\r\n')).toBe(true);
    expect(body.includes(allBytes)).toBe(true);
  });

  it('escapes quotes, CR and LF in names so a name cannot inject headers', () => {
    const name = 'evil"\r\nContent-Type: text/html\r\n\r\nx';
    const { body } = encodeMultipart([{ name, filename: 'f"x', data: Buffer.from('1') }], 'B');
    const head = body.toString('utf8').split('\r\n\r\n')[0];
    expect(head).toBe(
      '--B\r\nContent-Disposition: form-data; name="evil%22%0D%0AContent-Type: text/html%0D%0A%0D%0Ax"; filename="f%22x"\r\nContent-Type: application/octet-stream',
    );
  });

  it('picks another boundary when a body contains it', () => {
    const { contentType } = encodeMultipart([{ name: 'a', data: Buffer.from('x\r\n--SAME\r\n') }], 'SAME');
    expect(contentType).not.toBe('multipart/form-data; boundary=SAME');
  });

  it('is read back identically by an independent parser (undici)', async () => {
    const names = ['/workspace/ü space.txt', 'quote"d\nname', 'rel/x.bin'];
    const datas = [Buffer.from('ünïcode'), Buffer.from('\r\n--\r\n'), allBytes];
    const { body, contentType } = encodeMultipart(
      names.map((name, i) => ({ name, filename: name.split('/').pop(), data: datas[i] })),
    );
    const form = await new Response(new Uint8Array(body), { headers: { 'content-type': contentType } }).formData();
    const entries = [...form.entries()];
    expect(entries.map(([name]) => name)).toEqual(names);
    for (let i = 0; i < entries.length; i++) {
      const file = entries[i][1] as File;
      expect(file.name).toBe(names[i].split('/').pop());
      expect(Buffer.from(await file.arrayBuffer())).toEqual(datas[i]);
    }
  });
});

describe('multipart decoding', () => {
  it('decodes what undici encodes, binary safe, in order', async () => {
    const form = new FormData();
    form.append('/workspace/bin', new Blob([allBytes]), 'bin');
    form.append('sub/dir/quote"d', new Blob(['\r\n--x--\r\n']), 'q');
    form.append('text-field', 'plain value');
    const request = new Request('http://x/', { method: 'POST', body: form });
    const body = Buffer.from(await request.arrayBuffer());
    const parts = decodeMultipart(body, request.headers.get('content-type'));
    expect(parts.map((p) => p.name)).toEqual(['/workspace/bin', 'sub/dir/quote"d', 'text-field']);
    expect(parts[0].data).toEqual(allBytes);
    expect(parts[0].filename).toBe('bin');
    expect(parts[1].data.toString()).toBe('\r\n--x--\r\n');
    expect(parts[2].data.toString()).toBe('plain value');
  });

  it('round-trips its own encoding, including empty parts and a preamble', () => {
    const { body, contentType } = encodeMultipart([
      { name: 'empty', data: Buffer.alloc(0) },
      { name: 'x', data: Buffer.from('y') },
    ]);
    const withPreamble = Buffer.concat([Buffer.from('preamble text\r\n'), body]);
    const parts = decodeMultipart(withPreamble, contentType);
    expect(parts.map((p) => [p.name, p.data.toString()])).toEqual([
      ['empty', ''],
      ['x', 'y'],
    ]);
  });

  it('accepts an RFC 5987 name and a quoted boundary', () => {
    const body = Buffer.from(
      "--q b\r\nContent-Disposition: form-data; name*=utf-8''%C3%BC.txt\r\n\r\nz\r\n--q b--\r\n",
    );
    const parts = decodeMultipart(body, 'multipart/form-data; boundary="q b"');
    expect(parts).toEqual([{ name: 'ü.txt', filename: undefined, contentType: undefined, data: Buffer.from('z') }]);
  });

  it('refuses bodies that are not multipart or are cut short', () => {
    expect(() => decodeMultipart(Buffer.from('x'), 'application/json')).toThrow(/multipart\/form-data/);
    expect(() => decodeMultipart(Buffer.from('nothing'), 'multipart/form-data; boundary=b')).toThrow(/opening/);
    expect(() =>
      decodeMultipart(
        Buffer.from('--b\r\nContent-Disposition: form-data; name="a"\r\n\r\ncut'),
        'multipart/form-data; boundary=b',
      ),
    ).toThrow(/closing boundary/);
    expect(boundaryOf('multipart/form-data')).toBeNull();
  });
});
