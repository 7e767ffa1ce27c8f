import { defineRoute } from '@/server/http/define-route';
import { json } from '@/server/http/responses';
import { sandboxService } from '@/server/services';
import { fileService } from '@/server/services/files';
import { sandboxIdParams } from '@/server/spec/common';
import { pathBody } from '@/server/spec/filesystem';

export const POST = defineRoute({ params: sandboxIdParams, body: pathBody }, async ({ principal, params, body }) => {
  const sandbox = await sandboxService().ready(principal.teamId, params.sandboxID);
  return json(await fileService().stat(sandbox.container_id, body.path));
});
