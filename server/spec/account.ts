import { z } from 'zod';
import type { EndpointSpec } from './endpoint';

export const apiKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  /** The first characters of the key, to recognise it; never enough to use it. */
  prefix: z.string(),
  created_at: z.string(),
  revoked_at: z.string().optional(),
});
export type ApiKey = z.infer<typeof apiKeySchema>;

export const apiKeyListSchema = z.object({ items: z.array(apiKeySchema) });

export const createApiKeyBody = z.object({ name: z.string().trim().min(1).max(64) });

/** Returned once, by the request that creates the key. */
export const createdApiKeySchema = apiKeySchema.extend({ key: z.string() });
export type CreatedApiKey = z.infer<typeof createdApiKeySchema>;

export const apiKeyIdParams = z.object({ keyID: z.string().min(1).max(128) });

export const changePasswordBody = z.object({
  current_password: z.string().min(1).max(1024),
  new_password: z.string().min(8, 'must be at least 8 characters').max(1024),
});

const tag = 'Account';

export const accountEndpoints: EndpointSpec[] = [
  {
    method: 'get',
    path: '/api-keys',
    summary: 'List the team’s API keys (never the keys themselves)',
    tag,
    status: 200,
    response: apiKeyListSchema,
  },
  {
    method: 'post',
    path: '/api-keys',
    summary: 'Create an API key; the key is in this response only',
    tag,
    body: createApiKeyBody,
    status: 201,
    response: createdApiKeySchema,
  },
  { method: 'delete', path: '/api-keys/{keyID}', summary: 'Revoke an API key', tag, status: 204 },
  {
    method: 'post',
    path: '/account/password',
    summary: 'Change the signed-in user’s password (browser session only)',
    tag,
    body: changePasswordBody,
    status: 204,
  },
];
