import { defineRoute } from '@/server/http/define-route';
import { json } from '@/server/http/responses';
import { apiKeyService } from '@/server/services';
import { createApiKeyBody } from '@/server/spec/account';

export const GET = defineRoute({}, ({ principal }) => json({ items: apiKeyService().list(principal.teamId) }));

export const POST = defineRoute({ body: createApiKeyBody }, ({ principal, body }) =>
  json(apiKeyService().create(principal.teamId, body.name), 201),
);
