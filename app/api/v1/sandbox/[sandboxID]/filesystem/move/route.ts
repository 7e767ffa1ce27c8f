import { defineRoute } from '@/server/http/define-route';
import { noContent } from '@/server/http/responses';
import { sandboxService } from '@/server/services';
import { fileService } from '@/server/services/files';
import { sandboxIdParams } from '@/server/spec/common';
import { moveBody } from '@/server/spec/filesystem';

export const POST = defineRoute({ params: sandboxIdParams, body: moveBody }, async ({ principal, params, body }) => {
  const sandbox = await sandboxService().ready(principal.teamId, params.sandboxID);
  await fileService().move(sandbox.container_id, body);
  return noContent();
});
