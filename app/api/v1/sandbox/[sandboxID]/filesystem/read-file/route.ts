import { defineRoute } from '@/server/http/define-route';
import { bytes } from '@/server/http/responses';
import { sandboxService } from '@/server/services';
import { fileService } from '@/server/services/files';
import { sandboxIdParams } from '@/server/spec/common';
import { readFileBody } from '@/server/spec/filesystem';

export const POST = defineRoute(
  { params: sandboxIdParams, body: readFileBody },
  async ({ principal, params, body }) => {
    const sandbox = await sandboxService().ready(principal.teamId, params.sandboxID);
    return bytes(await fileService().readFile(sandbox.container_id, body));
  },
);
