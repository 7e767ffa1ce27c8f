import { defineRoute } from '@/server/http/define-route';
import { json } from '@/server/http/responses';
import { sshAccessService } from '@/server/services';
import { sandboxIdParams } from '@/server/spec/common';
import { sshValidateBody } from '@/server/spec/ssh';

export const POST = defineRoute(
  { params: sandboxIdParams, body: sshValidateBody },
  async ({ principal, params, body }) =>
    json(await sshAccessService().validate(principal.teamId, params.sandboxID, body.id, body.password)),
);
