import { loadConfig } from '@/server/config';
import { readBody } from '@/server/http/body';
import { defineRoute } from '@/server/http/define-route';
import { noContent } from '@/server/http/responses';
import { sandboxService } from '@/server/services';
import { fileService } from '@/server/services/files';
import { sandboxIdParams } from '@/server/spec/common';

/** multipart/form-data body: one part per file, field name = path. */
export const POST = defineRoute(
  { params: sandboxIdParams, browserContentTypes: ['multipart/form-data'] },
  async ({ principal, params, request }) => {
    const sandbox = await sandboxService().ready(principal.teamId, params.sandboxID);
    const body = await readBody(request, loadConfig().maxBodyBytes);
    await fileService().writeMultipart(sandbox.container_id, body, request.headers.get('content-type'));
    return noContent();
  },
);
