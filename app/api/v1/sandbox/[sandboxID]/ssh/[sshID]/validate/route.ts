import { defineRoute } from '@/server/http/define-route';
import { json } from '@/server/http/responses';
import { sshAccessService } from '@/server/services';
import { sshAccessParams, sshValidateByIdBody } from '@/server/spec/ssh';

export const POST = defineRoute(
  { params: sshAccessParams, body: sshValidateByIdBody },
  async ({ principal, params, body }) =>
    json(await sshAccessService().validate(principal.teamId, params.sandboxID, params.sshID, body.password)),
);
