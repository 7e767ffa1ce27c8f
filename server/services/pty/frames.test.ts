import { describe, expect, it } from 'vitest';
import { controlFrame, dataFrame, exitClose, MAX_INPUT_BYTES, parseClientFrame } from './frames';

describe('terminal frames', () => {
  it('prefixes output with type 0 and control JSON with type 1', () => {
    expect([...dataFrame(Buffer.from('hi'))]).toEqual([0, 0x68, 0x69]);
    const hello = controlFrame({ type: 'hello', offset: 42, lost: 0, cols: 80, rows: 24 });
    expect(hello[0]).toBe(1);
    expect(JSON.parse(hello.subarray(1).toString())).toEqual({
      type: 'hello',
      offset: 42,
      lost: 0,
      cols: 80,
      rows: 24,
    });
  });

  it('closes 1000 for exit code 0 and 1011 otherwise, with the code as JSON', () => {
    expect(exitClose(0)).toEqual({ code: 1000, reason: '{"exitCode":0}' });
    expect(exitClose(3)).toEqual({ code: 1011, reason: '{"exitCode":3}' });
  });

  it('takes binary and text frames as raw input in the default protocol', () => {
    expect(parseClientFrame(Buffer.from([1, 2, 3]), true, false)).toEqual({
      kind: 'input',
      data: Buffer.from([1, 2, 3]),
    });
    expect(parseClientFrame(Buffer.from('ls\r'), false, false)).toEqual({ kind: 'input', data: Buffer.from('ls\r') });
  });

  it('reads typed frames in the framed protocol', () => {
    expect(parseClientFrame(Buffer.from([0, 0x61]), true, true)).toEqual({ kind: 'input', data: Buffer.from('a') });
    const resize = Buffer.concat([Buffer.of(1), Buffer.from('{"type":"resize","cols":120,"rows":40}')]);
    expect(parseClientFrame(resize, true, true)).toEqual({ kind: 'resize', cols: 120, rows: 40 });
    expect(parseClientFrame(Buffer.from('echo'), false, true)).toEqual({ kind: 'input', data: Buffer.from('echo') });
  });

  it('rejects malformed control frames with a reason', () => {
    const control = (text: string) => Buffer.concat([Buffer.of(1), Buffer.from(text)]);
    for (const frame of [
      Buffer.alloc(0),
      Buffer.of(7, 1),
      control('not json'),
      control('{"type":"nope"}'),
      control('{"type":"resize","cols":0,"rows":10}'),
      control('{"type":"resize","cols":10.5,"rows":10}'),
      control('{"type":"resize","cols":80,"rows":1001}'),
    ]) {
      expect(parseClientFrame(frame, true, true).kind).toBe('invalid');
    }
  });

  it('refuses input payloads over 64 KiB in both protocols', () => {
    const big = Buffer.alloc(MAX_INPUT_BYTES + 1, 0x61);
    expect(parseClientFrame(big, true, false).kind).toBe('too_large');
    expect(parseClientFrame(big, false, false).kind).toBe('too_large');
    expect(parseClientFrame(Buffer.concat([Buffer.of(0), big]), true, true).kind).toBe('too_large');
    expect(parseClientFrame(Buffer.concat([Buffer.of(0), big.subarray(1)]), true, true).kind).toBe('input');
    expect(parseClientFrame(big.subarray(1), true, false).kind).toBe('input');
  });
});
