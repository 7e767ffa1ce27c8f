import { z } from 'zod';
import { sandboxIdParams } from './common';
import type { EndpointSpec } from './endpoint';

/**
 * PTY sessions: a shell in a sandbox behind a TTY, and the WebSocket that carries it.
 *
 * WebSocket `GET /v1/sandbox/{sandboxID}/pty/{sid}/connect` (also under /api/v1)
 * ----------------------------------------------------------------------------------
 * Refusals are plain HTTP JSON answers written before any upgrade: 401 (no/unknown key),
 * 403 (cookie without a same-origin Origin), 404 (unknown sandbox or session), 409 (the
 * session's shell has exited, or the sandbox is not running), 400 (bad query), 429.
 *
 * Query: `replay=0` skips the buffered output on attach; `offset=N` starts the output at byte
 * N of the session's output stream (see below) instead of at the oldest buffered byte.
 *
 * Default protocol (no subprotocol requested):
 * - server → client: binary frames only, raw terminal bytes. Output is coalesced: at most one
 *   frame per ~10 ms, at most 64 KiB per frame; output that follows client input within
 *   250 ms is sent at once (keystroke echo is not delayed).
 * - client → server: binary or text frames, raw input bytes (text frames as UTF-8).
 * - on attach the buffered recent output (a 512 KiB ring) is sent first, unless `replay=0`.
 * - when the shell exits: close 1000 with reason `{"exitCode":0}`, or 1011 with
 *   `{"exitCode":N}` (N ≠ 0; -1 when the code could not be learnt).
 *
 * Framed protocol (client requests subprotocol `shoal.pty.v1`): every frame is binary and
 * starts with one type byte.
 * - `0x00` + bytes: terminal data. Server → client: output; client → server: input.
 * - `0x01` + UTF-8 JSON: control.
 *   - client → server: `{"type":"resize","cols":C,"rows":R}` (integers 1–1000).
 *   - server → client, first frame on every connection:
 *     `{"type":"hello","offset":N,"lost":L,"cols":C,"rows":R}`.
 *     N is the stream offset of the first output byte that follows. Output offsets are implicit:
 *     the k-th output byte received after hello has offset N + k (0-based), so a client that
 *     has received B output bytes reconnects with `?offset=N+B` and continues exactly there,
 *     without duplicates, while those bytes are still buffered. If the requested offset is
 *     older than the oldest buffered byte, N is the oldest buffered byte and L = N − requested
 *     (bytes that are gone); otherwise L = 0. A requested offset beyond the end is clamped to
 *     the end.
 *   - server → client, last frame: `{"type":"exit","exitCode":N}`, followed by the same close
 *     as in the default protocol.
 *   - server → client: `{"type":"error","message":"…"}` for a control frame it cannot use (the
 *     connection stays open).
 *   Text frames from the client are taken as raw input bytes in both protocols.
 *
 * Both protocols: several clients may attach to one session; each receives all output. Input
 * frames over 64 KiB (payload, after the type byte) close the connection with 1009. A client
 * whose unsent output stays above the high watermark without making progress for 5 s is closed
 * with 1008. Ping every 30 s; a client that missed the previous pong is dropped. When the
 * sandbox stops or is deleted, or the session is deleted, open connections are closed with 1001
 * and reason `{"reason":"…"}`.
 */

export const PTY_SUBPROTOCOL = 'shoal.pty.v1';

const dimension = z.number().int().min(1).max(1000);

const envNameSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a valid environment variable name');

export const ptyEnvsSchema = z
  .record(
    envNameSchema,
    z.string().refine((value) => !value.includes('\0'), 'must not contain NUL'),
  )
  .refine((envs) => Object.keys(envs).length <= 100, 'at most 100 variables');

export const createPtyBody = z.object({
  id: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1–64 letters, digits, _ or -')
    .optional(),
  cwd: z
    .string()
    .min(1)
    .max(4096)
    .refine((value) => !value.includes('\0'), 'must not contain NUL')
    .optional(),
  envs: ptyEnvsSchema.optional(),
  cols: dimension.optional(),
  rows: dimension.optional(),
  lazy_start: z.boolean().optional(),
});
export type CreatePtyBody = z.infer<typeof createPtyBody>;

export const resizePtyBody = z.object({ cols: dimension, rows: dimension });
export type ResizePtyBody = z.infer<typeof resizePtyBody>;

export const ptyParams = sandboxIdParams.extend({ sid: z.string().min(1).max(128) });

export const ptyConnectQuery = z.object({
  replay: z.enum(['0', '1', 'false', 'true']).optional(),
  offset: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
});
export type PtyConnectQuery = z.infer<typeof ptyConnectQuery>;

export const ptySessionSchema = z.object({
  id: z.string(),
  cwd: z.string(),
  envs: z.record(z.string(), z.string()),
  cols: z.number().int(),
  rows: z.number().int(),
  created_at: z.string(),
  active: z.boolean(),
  lazy_start: z.boolean(),
  /** Extension: set once the shell has exited. */
  exit_code: z.number().int().optional(),
});
export type PtySession = z.infer<typeof ptySessionSchema>;

export const ptySessionListSchema = z.object({ items: z.array(ptySessionSchema) });

const tag = 'Terminals';

export const ptyEndpoints: EndpointSpec[] = [
  {
    method: 'post',
    path: '/sandbox/{sandboxID}/pty',
    summary: 'Create a PTY session (a login shell; deferred to the first connection with lazy_start)',
    tag,
    body: createPtyBody,
    status: 201,
    response: ptySessionSchema,
  },
  {
    method: 'get',
    path: '/sandbox/{sandboxID}/pty',
    summary: 'List the PTY sessions of a sandbox',
    tag,
    status: 200,
    response: ptySessionListSchema,
  },
  {
    method: 'get',
    path: '/sandbox/{sandboxID}/pty/{sid}',
    summary: 'Get a PTY session',
    tag,
    status: 200,
    response: ptySessionSchema,
  },
  {
    method: 'delete',
    path: '/sandbox/{sandboxID}/pty/{sid}',
    summary: 'Delete a PTY session (kills its shell)',
    tag,
    status: 204,
  },
  {
    method: 'post',
    path: '/sandbox/{sandboxID}/pty/{sid}/resize',
    summary: 'Resize the terminal window',
    tag,
    body: resizePtyBody,
    status: 200,
    response: ptySessionSchema,
  },
  {
    method: 'get',
    path: '/sandbox/{sandboxID}/pty/{sid}/connect',
    summary:
      'WebSocket to the terminal. Default protocol: raw binary frames. Subprotocol shoal.pty.v1: type byte 0 = data, 1 = JSON control (resize / hello / exit)',
    tag,
    query: ptyConnectQuery,
    status: 101,
  },
];
