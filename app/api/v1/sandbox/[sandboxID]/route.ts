import { defineRoute } from '@/server/http/define-route';
import { json, noContent } from '@/server/http/responses';
import { sandboxService } from '@/server/services';
import { sandboxIdParams } from '@/server/spec/common';
import { getSandboxQuery } from '@/server/spec/sandbox';

export const GET = defineRoute(
  { params: sandboxIdParams, query: getSandboxQuery },
  async ({ principal, params, query }) =>
    json(await sandboxService().get(principal.teamId, params.sandboxID, query.wait, query.wait_timeout * 1000)),
);

export const DELETE = defineRoute({ params: sandboxIdParams }, async ({ principal, params }) => {
  await sandboxService().remove(principal.teamId, params.sandboxID);
  return noContent();
});
