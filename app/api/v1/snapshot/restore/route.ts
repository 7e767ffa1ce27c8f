import { defineRoute } from '@/server/http/define-route';
import { json } from '@/server/http/responses';
import { sandboxService } from '@/server/services';
import { restoreBody } from '@/server/spec/sandbox';

export const POST = defineRoute({ body: restoreBody }, async ({ principal, body }) =>
  json(await sandboxService().restore(principal.teamId, body), 201),
);
