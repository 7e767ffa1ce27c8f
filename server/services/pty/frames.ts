/**
 * The wire format of the terminal WebSocket (documented in server/spec/pty.ts). Pure functions,
 * shared by the server and the tests.
 */
export const FRAME_DATA = 0;
export const FRAME_CONTROL = 1;
/** Largest input payload accepted in one frame (after the type byte of the framed protocol). */
export const MAX_INPUT_BYTES = 64 * 1024;

export type ServerControl =
  | { type: 'hello'; offset: number; lost: number; cols: number; rows: number }
  | { type: 'exit'; exitCode: number }
  | { type: 'error'; message: string };

export type ClientMessage =
  | { kind: 'input'; data: Buffer }
  | { kind: 'resize'; cols: number; rows: number }
  | { kind: 'invalid'; message: string }
  | { kind: 'too_large' };

export function controlFrame(message: ServerControl): Buffer {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  const frame = Buffer.allocUnsafe(body.length + 1);
  frame[0] = FRAME_CONTROL;
  body.copy(frame, 1);
  return frame;
}

export function dataFrame(bytes: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(bytes.length + 1);
  frame[0] = FRAME_DATA;
  frame.set(bytes, 1);
  return frame;
}

/** The close of a connection whose shell exited: 1000 for 0, 1011 otherwise; JSON reason. */
export function exitClose(exitCode: number): { code: number; reason: string } {
  return { code: exitCode === 0 ? 1000 : 1011, reason: JSON.stringify({ exitCode }) };
}

function isDimension(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 1000;
}

/** Reads one client frame. Text frames are raw input in both protocols. */
export function parseClientFrame(data: Buffer, isBinary: boolean, framed: boolean): ClientMessage {
  if (!framed || !isBinary) {
    return data.length > MAX_INPUT_BYTES ? { kind: 'too_large' } : { kind: 'input', data };
  }
  if (data.length === 0) return { kind: 'invalid', message: 'Empty frame: the first byte must be the frame type' };
  const payload = data.subarray(1);
  if (payload.length > MAX_INPUT_BYTES) return { kind: 'too_large' };
  if (data[0] === FRAME_DATA) return { kind: 'input', data: payload };
  if (data[0] !== FRAME_CONTROL) return { kind: 'invalid', message: `Unknown frame type ${data[0]}` };
  let message: unknown;
  try {
    message = JSON.parse(payload.toString('utf8'));
  } catch {
    return { kind: 'invalid', message: 'Control frame is not valid JSON' };
  }
  const control = message as { type?: unknown; cols?: unknown; rows?: unknown } | null;
  if (control?.type !== 'resize') {
    return { kind: 'invalid', message: `Unknown control message type ${JSON.stringify(control?.type ?? null)}` };
  }
  if (!isDimension(control.cols) || !isDimension(control.rows)) {
    return { kind: 'invalid', message: 'resize needs integer cols and rows between 1 and 1000' };
  }
  return { kind: 'resize', cols: control.cols, rows: control.rows };
}
