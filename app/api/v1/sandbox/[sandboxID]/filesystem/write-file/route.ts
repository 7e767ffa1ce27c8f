import { loadConfig } from '@/server/config';
import { readBody } from '@/server/http/body';
import { defineRoute } from '@/server/http/define-route';
import { noContent } from '@/server/http/responses';
import { sandboxService } from '@/server/services';
import { fileService } from '@/server/services/files';
import { sandboxIdParams } from '@/server/spec/common';
import { writeFileQuery } from '@/server/spec/filesystem';

/** Raw body = the file's bytes; `?path=P[&permissions=644]`. */
export const POST = defineRoute(
  { params: sandboxIdParams, query: writeFileQuery, browserContentTypes: ['application/octet-stream'] },
  async ({ principal, params, query, request }) => {
    const sandbox = await sandboxService().ready(principal.teamId, params.sandboxID);
    const data = await readBody(request, loadConfig().maxBodyBytes);
    await fileService().writeFile(sandbox.container_id, { path: query.path, data, mode: query.permissions });
    return noContent();
  },
);
