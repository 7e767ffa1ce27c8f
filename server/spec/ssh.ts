import { z } from 'zod';
import { sandboxIdParams } from './common';
import type { EndpointSpec } from './endpoint';

const accessId = z.string().min(1).max(128);
const password = z.string().min(1).max(1024);

export const sshAccessParams = sandboxIdParams.extend({ sshID: accessId });

/** `POST /ssh/validate`: the spec's body. */
export const sshValidateBody = z.object({ id: accessId, password });
/** `POST /ssh/{sshID}/validate`: the id is in the path. */
export const sshValidateByIdBody = z.object({ password });

export const sshValidationSchema = z.object({ valid: z.boolean(), sandbox_id: z.string() });
export type SshValidation = z.infer<typeof sshValidationSchema>;

/** Returned by create and regen only: the one time the password is shown. */
export const sshAccessSchema = z.object({
  id: z.string().describe('The SSH user name'),
  sandbox_id: z.string(),
  password: z.string(),
  expires_at: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  ssh_command: z.string().describe('A command to paste: ssh -p <port> <id>@<host>'),
});
export type SshAccess = z.infer<typeof sshAccessSchema>;

const tag = 'SSH';

export const sshEndpoints: EndpointSpec[] = [
  {
    method: 'post',
    path: '/sandbox/{sandboxID}/ssh/access',
    summary: 'Create the sandbox’s SSH credential (replaces the previous one; the password is shown once)',
    tag,
    status: 201,
    response: sshAccessSchema,
  },
  {
    method: 'delete',
    path: '/sandbox/{sandboxID}/ssh/access',
    summary: 'Delete the sandbox’s SSH credential (invalid at once)',
    tag,
    status: 204,
  },
  {
    method: 'post',
    path: '/sandbox/{sandboxID}/ssh/validate',
    summary: 'Check an SSH credential pair (false when wrong or expired)',
    tag,
    body: sshValidateBody,
    status: 200,
    response: sshValidationSchema,
  },
  {
    method: 'post',
    path: '/sandbox/{sandboxID}/ssh/regen',
    summary: 'New password and fresh expiry for the sandbox’s SSH credential',
    tag,
    status: 200,
    response: sshAccessSchema,
  },
  {
    method: 'delete',
    path: '/sandbox/{sandboxID}/ssh/{sshID}',
    summary: 'Delete an SSH credential (invalid at once)',
    tag,
    status: 204,
  },
  {
    method: 'post',
    path: '/sandbox/{sandboxID}/ssh/{sshID}/validate',
    summary: 'Check an SSH credential’s password (false when wrong or expired)',
    tag,
    body: sshValidateByIdBody,
    status: 200,
    response: sshValidationSchema,
  },
  {
    method: 'post',
    path: '/sandbox/{sandboxID}/ssh/{sshID}/regen',
    summary: 'New password and fresh expiry for an SSH credential',
    tag,
    status: 200,
    response: sshAccessSchema,
  },
];
