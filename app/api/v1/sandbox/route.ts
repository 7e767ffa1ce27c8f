import { defineRoute } from '@/server/http/define-route';
import { json } from '@/server/http/responses';
import { sandboxService } from '@/server/services';
import { createSandboxBody } from '@/server/spec/sandbox';

export const POST = defineRoute({ body: createSandboxBody }, async ({ principal, body }) =>
  json(await sandboxService().create(principal.teamId, body), 201),
);
