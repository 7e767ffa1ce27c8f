import { defineRoute } from '@/server/http/define-route';
import { bytes } from '@/server/http/responses';
import { sandboxService } from '@/server/services';
import { fileService } from '@/server/services/files';
import { sandboxIdParams } from '@/server/spec/common';
import { readFilesBody } from '@/server/spec/filesystem';

export const POST = defineRoute(
  { params: sandboxIdParams, body: readFilesBody },
  async ({ principal, params, body }) => {
    const sandbox = await sandboxService().ready(principal.teamId, params.sandboxID);
    const multipart = await fileService().readFiles(sandbox.container_id, body.paths);
    return bytes(multipart.body, multipart.contentType);
  },
);
