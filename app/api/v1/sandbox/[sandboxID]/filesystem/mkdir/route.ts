import { defineRoute } from '@/server/http/define-route';
import { noContent } from '@/server/http/responses';
import { sandboxService } from '@/server/services';
import { fileService } from '@/server/services/files';
import { sandboxIdParams } from '@/server/spec/common';
import { mkdirBody } from '@/server/spec/filesystem';

export const POST = defineRoute({ params: sandboxIdParams, body: mkdirBody }, async ({ principal, params, body }) => {
  const sandbox = await sandboxService().ready(principal.teamId, params.sandboxID);
  await fileService().mkdir(sandbox.container_id, body);
  return noContent();
});
