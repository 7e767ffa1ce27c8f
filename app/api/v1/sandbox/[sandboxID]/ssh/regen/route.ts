import { defineRoute } from '@/server/http/define-route';
import { json } from '@/server/http/responses';
import { sshAccessService } from '@/server/services';
import { requestHost } from '@/server/services/ssh-access';
import { sandboxIdParams } from '@/server/spec/common';

export const POST = defineRoute({ params: sandboxIdParams }, async ({ principal, params, request }) =>
  json(await sshAccessService().regen(principal.teamId, params.sandboxID, undefined, requestHost(request.headers))),
);
