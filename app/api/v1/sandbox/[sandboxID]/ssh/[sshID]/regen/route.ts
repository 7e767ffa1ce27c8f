import { defineRoute } from '@/server/http/define-route';
import { json } from '@/server/http/responses';
import { sshAccessService } from '@/server/services';
import { requestHost } from '@/server/services/ssh-access';
import { sshAccessParams } from '@/server/spec/ssh';

export const POST = defineRoute({ params: sshAccessParams }, async ({ principal, params, request }) =>
  json(await sshAccessService().regen(principal.teamId, params.sandboxID, params.sshID, requestHost(request.headers))),
);
