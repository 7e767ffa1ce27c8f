import { defineRoute } from '@/server/http/define-route';
import { json, noContent } from '@/server/http/responses';
import { sshAccessService } from '@/server/services';
import { requestHost } from '@/server/services/ssh-access';
import { sandboxIdParams } from '@/server/spec/common';

export const POST = defineRoute({ params: sandboxIdParams }, async ({ principal, params, request }) =>
  json(await sshAccessService().create(principal.teamId, params.sandboxID, requestHost(request.headers)), 201),
);

export const DELETE = defineRoute({ params: sandboxIdParams }, ({ principal, params }) => {
  sshAccessService().remove(principal.teamId, params.sandboxID);
  return noContent();
});
