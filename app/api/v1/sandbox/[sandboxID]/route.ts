import { defineRoute } from '@/server/http/define-route';
import { json, noContent } from '@/server/http/responses';
import { sandboxService } from '@/server/services';
import { sandboxIdParams } from '@/server/spec/common';

export const GET = defineRoute({ params: sandboxIdParams }, ({ principal, params }) =>
  json(sandboxService().get(principal.teamId, params.sandboxID)),
);

export const DELETE = defineRoute({ params: sandboxIdParams }, async ({ principal, params }) => {
  await sandboxService().remove(principal.teamId, params.sandboxID);
  return noContent();
});
