import { z } from 'zod';
import { checkCloneUrl } from '../services/git/url-policy';
import type { EndpointSpec } from './endpoint';

/**
 * Git routes: request bodies and results with the exact wire names. Every value that git sees as
 * a ref, remote or option value is refused when it starts with `-` (it could be read as an
 * option). Optional fields accept `null` or `""` as "absent" (some clients send empty values).
 */

const CONTROL_RE = /[\u0000-\u001f\u007f]/;

const noNul = (value: string) => !value.includes('\0');

/** A directory or file path inside the sandbox; relative paths resolve against /workspace. */
export const gitPathSchema = z.string().min(1).max(4096).refine(noNul, 'must not contain NUL');

const refRules = z
  .string()
  .max(1024)
  .refine((value) => !value.startsWith('-'), 'must not start with "-"')
  .refine((value) => !CONTROL_RE.test(value), 'must not contain control characters');

/** Branch, tag, commit, revision or remote name. */
export const refSchema = refRules.refine((value) => value.length > 0, 'must not be empty');
const optionalRef = refRules.nullish();

/** User name or password: passed through the environment, so no NUL and no line breaks. */
const credentialSchema = z
  .string()
  .max(4096)
  .refine((value) => !CONTROL_RE.test(value), 'must not contain control characters')
  .nullish();

const identitySchema = z
  .string()
  .max(256)
  .refine((value) => !CONTROL_RE.test(value), 'must not contain control characters')
  .nullish();

const contextLines = z.number().int().min(0).max(1_000_000).nullish();

export const cloneUrlSchema = z.string().superRefine((value, ctx) => {
  const check = checkCloneUrl(value);
  if (!check.ok) ctx.addIssue({ code: 'custom', message: check.error });
});

export const gitCloneBody = z.object({
  url: cloneUrlSchema,
  path: gitPathSchema,
  branch: optionalRef,
  commit_id: optionalRef,
  depth: z.number().int().min(1).max(2_147_483_647).nullish(),
  username: credentialSchema,
  password: credentialSchema,
});
export type GitCloneBody = z.infer<typeof gitCloneBody>;

export const gitPathBody = z.object({ path: gitPathSchema });
export type GitPathBody = z.infer<typeof gitPathBody>;

const filesSchema = z.array(gitPathSchema).max(10_000);

export const gitAddBody = z.object({ path: gitPathSchema, files: filesSchema.min(1) });
export type GitAddBody = z.infer<typeof gitAddBody>;

export const gitResetBody = z.object({ path: gitPathSchema, files: filesSchema.nullish() });
export type GitResetBody = z.infer<typeof gitResetBody>;

export const gitCommitBody = z.object({
  path: gitPathSchema,
  message: z.string().max(1_000_000).refine(noNul, 'must not contain NUL'),
  author: identitySchema,
  email: identitySchema,
  allow_empty: z.boolean().nullish(),
});
export type GitCommitBody = z.infer<typeof gitCommitBody>;

export const branchTypes = ['local', 'remote', 'all'] as const;

export const gitBranchesBody = z.object({
  path: gitPathSchema,
  branch_type: z.enum(branchTypes).nullish(),
  contains: optionalRef,
  not_contains: optionalRef,
});
export type GitBranchesBody = z.infer<typeof gitBranchesBody>;

export const gitCheckoutBody = z.object({ path: gitPathSchema, branch: refSchema, create: z.boolean().nullish() });
export type GitCheckoutBody = z.infer<typeof gitCheckoutBody>;

export const gitDiffBody = z.object({ path: gitPathSchema, target: refSchema, context_lines: contextLines });
export type GitDiffBody = z.infer<typeof gitDiffBody>;

export const gitWorktreeDiffBody = z.object({ path: gitPathSchema, context_lines: contextLines });
export type GitWorktreeDiffBody = z.infer<typeof gitWorktreeDiffBody>;

export const gitLogBody = z.object({ path: gitPathSchema, max_count: z.number().int().min(1).max(100_000).nullish() });
export type GitLogBody = z.infer<typeof gitLogBody>;

export const gitShowBody = z.object({ path: gitPathSchema, revision: refSchema });
export type GitShowBody = z.infer<typeof gitShowBody>;

export const gitCreateBranchBody = z.object({
  path: gitPathSchema,
  name: refSchema,
  base_branch: optionalRef,
  checkout: z.boolean().nullish(),
});
export type GitCreateBranchBody = z.infer<typeof gitCreateBranchBody>;

export const gitDeleteBranchBody = z.object({ path: gitPathSchema, name: refSchema, force: z.boolean().nullish() });
export type GitDeleteBranchBody = z.infer<typeof gitDeleteBranchBody>;

export const gitRemoteBody = z.object({
  path: gitPathSchema,
  remote: optionalRef,
  branch: optionalRef,
  set_upstream: z.boolean().nullish(),
  username: credentialSchema,
  password: credentialSchema,
});
export type GitRemoteBody = z.infer<typeof gitRemoteBody>;

export const gitResultSchema = z.object({
  output: z.string(),
  exit_code: z.number().int(),
});
export type GitResult = z.infer<typeof gitResultSchema>;

export const gitCommitResultSchema = z.object({ sha: z.string(), result: gitResultSchema });
export type GitCommitResult = z.infer<typeof gitCommitResultSchema>;

const tag = 'Git';

function endpoint(name: string, summary: string, body: z.ZodType, response: z.ZodType = gitResultSchema): EndpointSpec {
  return { method: 'post', path: `/sandbox/{sandboxID}/git/${name}`, summary, tag, body, status: 200, response };
}

export const gitEndpoints: EndpointSpec[] = [
  endpoint('clone', 'Clone a repository (https, http, ssh, git URLs)', gitCloneBody),
  endpoint('add', 'Stage files', gitAddBody),
  endpoint('reset', 'Unstage all changes, or only `files`', gitResetBody),
  endpoint('commit', 'Commit staged changes', gitCommitBody, gitCommitResultSchema),
  endpoint('branches', 'List branches', gitBranchesBody),
  endpoint('checkout-branch', 'Check out a branch (optionally creating it)', gitCheckoutBody),
  endpoint('status', 'git status --porcelain=v2 --branch', gitPathBody),
  endpoint('diff', 'Diff against a branch, tag or commit', gitDiffBody),
  endpoint('diff-unstaged', 'Working-tree changes not yet staged', gitWorktreeDiffBody),
  endpoint('diff-staged', 'Staged changes', gitWorktreeDiffBody),
  endpoint('log', 'Recent commits', gitLogBody),
  endpoint('show', 'Show a commit or object', gitShowBody),
  endpoint('create-branch', 'Create a branch', gitCreateBranchBody),
  endpoint('delete-branch', 'Delete a branch', gitDeleteBranchBody),
  endpoint('push', 'Push to a remote', gitRemoteBody),
  endpoint('pull', 'Pull from a remote', gitRemoteBody),
];
