import { z } from 'zod';
import type { EndpointSpec } from './endpoint';

/**
 * Filesystem routes: request bodies and results with the exact wire names. Paths are resolved
 * inside the sandbox; relative ones against /workspace. Optional fields also accept `null`
 * (some clients send empty values).
 */

const noNul = (value: string) => !value.includes('\0');

/** A file or directory path inside the sandbox. */
export const fsPathSchema = z.string().min(1).max(4096).refine(noNul, 'must not contain NUL');

/** Octal permission bits, `644`, `0755`, `1777`. */
export const modeSchema = z.string().regex(/^[0-7]{3,4}$/, 'must be an octal mode of 3 or 4 digits, such as 755');

const patternSchema = z.string().max(1024).refine(noNul, 'must not contain NUL');
const patternList = z.array(patternSchema).max(100);
/** One pattern or a list of them. */
const patternOrList = z.union([patternSchema, patternList]);

/** A user or group name, or a numeric id. */
const principalName = z
  .string()
  .regex(/^[A-Za-z0-9_][A-Za-z0-9._-]{0,31}$/, 'must be a user or group name or a numeric id');

// ---- spec routes ------------------------------------------------------------------------

export const mkdirBody = z.object({
  path: fsPathSchema,
  recursive: z.boolean().nullish(),
  permissions: modeSchema.nullish(),
});
export type MkdirBody = z.infer<typeof mkdirBody>;

export const globBody = z.object({
  path: fsPathSchema,
  pattern: patternSchema.nullish(),
  exclude: patternList.nullish(),
});
export type GlobBody = z.infer<typeof globBody>;

export const globResult = z.object({
  items: z.array(z.string()),
  /** Present (true) when more files matched than the cap. */
  truncated: z.boolean().optional(),
});
export type GlobResult = z.infer<typeof globResult>;

export const readFilesBody = z.object({ paths: z.array(fsPathSchema).min(1).max(10_000) });
export type ReadFilesBody = z.infer<typeof readFilesBody>;

export const editFilesBody = z.object({
  files: z.array(fsPathSchema).min(1).max(10_000),
  find: z.string().min(1, 'must not be empty'),
  replace: z.string().nullish(),
});
export type EditFilesBody = z.infer<typeof editFilesBody>;

export const editFileItem = z.object({
  file: z.string(),
  success: z.boolean(),
  error: z.string().optional(),
  /** Extension: how many occurrences were replaced. */
  replacements: z.number().int(),
});

export const editFilesResult = z.object({ items: z.array(editFileItem) });
export type EditFilesResult = z.infer<typeof editFilesResult>;

// ---- extensions -------------------------------------------------------------------------

export const fileInfoSchema = z.object({
  name: z.string(),
  path: z.string(),
  is_dir: z.boolean(),
  size: z.number().int(),
  /** Permission bits in octal, e.g. "644". */
  mode: z.string(),
  /** Modification time, Unix seconds. */
  mtime: z.number().int(),
  owner: z.string(),
  group: z.string(),
  is_symlink: z.boolean(),
  link_target: z.string().optional(),
});
export type FileInfo = z.infer<typeof fileInfoSchema>;

export const pathBody = z.object({ path: fsPathSchema });

export const lsBody = z.object({
  path: fsPathSchema,
  recursive: z.boolean().nullish(),
  exclude: patternList.nullish(),
});
export type LsBody = z.infer<typeof lsBody>;

export const lsResult = z.object({ items: z.array(fileInfoSchema), truncated: z.boolean().optional() });

export const existsResult = z.object({ exists: z.boolean() });

export const treeBody = z.object({
  path: fsPathSchema,
  exclude: patternList.nullish(),
  max_depth: z.number().int().min(1).max(1000).nullish(),
});
export type TreeBody = z.infer<typeof treeBody>;

export interface TreeNode {
  name: string;
  type: 'file' | 'directory';
  children?: TreeNode[];
}

export const treeNodeSchema: z.ZodType<TreeNode> = z.object({
  name: z.string(),
  type: z.enum(['file', 'directory']),
  get children() {
    return z.array(treeNodeSchema).optional();
  },
});

export const treeResult = z.object({ items: z.array(treeNodeSchema), truncated: z.boolean().optional() });
export type TreeResult = z.infer<typeof treeResult>;

const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const readFileBody = z
  .object({
    path: fsPathSchema,
    /** First byte to return (0-based). */
    offset: count.nullish(),
    /** Bytes to return at most. */
    limit: count.nullish(),
    /** The first N lines. */
    head: count.nullish(),
    /** The last N lines. */
    tail: count.nullish(),
  })
  .superRefine((body, ctx) => {
    const ways = [body.offset != null || body.limit != null, body.head != null, body.tail != null];
    if (ways.filter(Boolean).length > 1) {
      ctx.addIssue({ code: 'custom', path: ['head'], message: 'use one of offset/limit, head or tail' });
    }
  });
export type ReadFileBody = z.infer<typeof readFileBody>;

export const writeFileQuery = z.object({ path: fsPathSchema, permissions: modeSchema.optional() });

export const deleteBody = z.object({ path: fsPathSchema, recursive: z.boolean().nullish() });
export type DeleteBody = z.infer<typeof deleteBody>;

export const moveBody = z.object({
  src_path: fsPathSchema,
  dst_path: fsPathSchema,
  overwrite: z.boolean().nullish(),
});
export type MoveBody = z.infer<typeof moveBody>;

export const copyBody = z.object({
  src_path: fsPathSchema,
  dst_path: fsPathSchema,
  recursive: z.boolean().nullish(),
  overwrite: z.boolean().nullish(),
});
export type CopyBody = z.infer<typeof copyBody>;

export const setPermissionsBody = z
  .object({
    path: fsPathSchema,
    mode: modeSchema.nullish(),
    owner: principalName.nullish(),
    group: principalName.nullish(),
  })
  .refine((body) => body.mode != null || body.owner != null || body.group != null, {
    message: 'give at least one of mode, owner, group',
    path: ['mode'],
  });
export type SetPermissionsBody = z.infer<typeof setPermissionsBody>;

export const grepBody = z.object({
  path: fsPathSchema,
  pattern: z.string().min(1, 'must not be empty').max(4096).refine(noNul, 'must not contain NUL'),
  /** Only files whose name (or relative path, for patterns with `/`) matches one of these. */
  include: patternOrList.nullish(),
  /** Files and directories to skip, like glob's `exclude`. */
  exclude: patternOrList.nullish(),
  /** Extension: treat `pattern` as an extended regular expression (default: a fixed string). */
  regex: z.boolean().nullish(),
  /** Extension: default true. */
  case_sensitive: z.boolean().nullish(),
  /** Extension: default 1000, at most 10 000. */
  max_results: z.number().int().min(1).max(10_000).nullish(),
});
export type GrepBody = z.infer<typeof grepBody>;

export const grepResult = z.object({
  items: z.array(z.object({ path: z.string(), line: z.number().int(), content: z.string() })),
  truncated: z.boolean().optional(),
});
export type GrepResult = z.infer<typeof grepResult>;

// ---- OpenAPI ----------------------------------------------------------------------------

const tag = 'Filesystem';
const base = '/sandbox/{sandboxID}/filesystem';

export const filesystemEndpoints: EndpointSpec[] = [
  { method: 'post', path: `${base}/mkdir`, summary: 'Create a directory', tag, body: mkdirBody, status: 204 },
  {
    method: 'post',
    path: `${base}/glob`,
    summary: 'Find files by glob pattern',
    tag,
    body: globBody,
    status: 200,
    response: globResult,
  },
  {
    method: 'post',
    path: `${base}/read-files`,
    summary: 'Read several files (multipart/form-data, one part per path)',
    tag,
    body: readFilesBody,
    status: 200,
    responseContentType: 'multipart/form-data',
  },
  {
    method: 'post',
    path: `${base}/edit-files`,
    summary: 'Find and replace text across files',
    tag,
    body: editFilesBody,
    status: 200,
    response: editFilesResult,
  },
  {
    method: 'post',
    path: `${base}/ls`,
    summary: 'List a directory',
    tag,
    body: lsBody,
    status: 200,
    response: lsResult,
  },
  {
    method: 'post',
    path: `${base}/stat`,
    summary: 'Describe a file',
    tag,
    body: pathBody,
    status: 200,
    response: fileInfoSchema,
  },
  {
    method: 'post',
    path: `${base}/exists`,
    summary: 'Whether a path exists',
    tag,
    body: pathBody,
    status: 200,
    response: existsResult,
  },
  {
    method: 'post',
    path: `${base}/tree`,
    summary: 'Directory tree',
    tag,
    body: treeBody,
    status: 200,
    response: treeResult,
  },
  {
    method: 'post',
    path: `${base}/read-file`,
    summary: 'Read one file (raw bytes)',
    tag,
    body: readFileBody,
    status: 200,
    responseContentType: 'application/octet-stream',
  },
  {
    method: 'post',
    path: `${base}/write-file`,
    summary: 'Write one file from the raw body (creates parent directories)',
    tag,
    query: writeFileQuery,
    bodyContentType: 'application/octet-stream',
    status: 204,
  },
  {
    method: 'post',
    path: `${base}/write-files`,
    summary: 'Write several files (multipart/form-data, field name = path)',
    tag,
    bodyContentType: 'multipart/form-data',
    status: 204,
  },
  { method: 'post', path: `${base}/delete`, summary: 'Delete a file or directory', tag, body: deleteBody, status: 204 },
  { method: 'post', path: `${base}/move`, summary: 'Move or rename', tag, body: moveBody, status: 204 },
  { method: 'post', path: `${base}/copy`, summary: 'Copy a file or directory', tag, body: copyBody, status: 204 },
  {
    method: 'post',
    path: `${base}/set-permissions`,
    summary: 'Change mode and/or owner',
    tag,
    body: setPermissionsBody,
    status: 204,
  },
  {
    method: 'post',
    path: `${base}/grep`,
    summary: 'Search file contents',
    tag,
    body: grepBody,
    status: 200,
    response: grepResult,
  },
];
