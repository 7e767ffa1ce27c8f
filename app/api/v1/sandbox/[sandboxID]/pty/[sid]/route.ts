import { defineRoute } from '@/server/http/define-route';
import { json, noContent } from '@/server/http/responses';
import { ptyService } from '@/server/services/pty';
import { ptyParams } from '@/server/spec/pty';

export const GET = defineRoute({ params: ptyParams }, async ({ principal, params }) =>
  json(await ptyService().get(principal.teamId, params.sandboxID, params.sid)),
);

export const DELETE = defineRoute({ params: ptyParams }, async ({ principal, params }) => {
  await ptyService().remove(principal.teamId, params.sandboxID, params.sid);
  return noContent();
});
