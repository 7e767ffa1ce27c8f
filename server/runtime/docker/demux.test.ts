import { describe, expect, it } from 'vitest';
import { DockerStreamDemuxer } from './demux';

function frame(type: number, text: string): Buffer {
  const payload = Buffer.from(text);
  const header = Buffer.alloc(8);
  header[0] = type;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
}

describe('DockerStreamDemuxer', () => {
  it('separates stdout and stderr frames', () => {
    const demuxer = new DockerStreamDemuxer();
    demuxer.push(Buffer.concat([frame(1, 'out1 '), frame(2, 'err'), frame(1, 'out2')]));
    expect(demuxer.result().stdout.toString()).toBe('out1 out2');
    expect(demuxer.result().stderr.toString()).toBe('err');
  });

  it('reassembles frames split across chunks, even inside the header', () => {
    const bytes = Buffer.concat([frame(1, 'hello world'), frame(2, 'oops')]);
    const demuxer = new DockerStreamDemuxer();
    for (let i = 0; i < bytes.length; i += 3) demuxer.push(bytes.subarray(i, i + 3));
    expect(demuxer.result().stdout.toString()).toBe('hello world');
    expect(demuxer.result().stderr.toString()).toBe('oops');
  });

  it('keeps binary payloads byte for byte', () => {
    const payload = Buffer.from([0, 255, 10, 13, 0x80]);
    const header = Buffer.alloc(8);
    header[0] = 1;
    header.writeUInt32BE(payload.length, 4);
    const demuxer = new DockerStreamDemuxer();
    demuxer.push(Buffer.concat([header, payload]));
    expect(demuxer.result().stdout.equals(payload)).toBe(true);
  });

  it('stops keeping output past the cap and says so', () => {
    const demuxer = new DockerStreamDemuxer(6);
    demuxer.push(Buffer.concat([frame(1, 'abcd'), frame(1, 'efgh')]));
    expect(demuxer.result().stdout.toString()).toBe('abcdef');
    expect(demuxer.truncated).toBe(true);
  });
});
