import { defineRoute } from '@/server/http/define-route';
import { json } from '@/server/http/responses';
import { ptyService } from '@/server/services/pty';
import { ptyParams, resizePtyBody } from '@/server/spec/pty';

export const POST = defineRoute({ params: ptyParams, body: resizePtyBody }, async ({ principal, params, body }) =>
  json(await ptyService().resize(principal.teamId, params.sandboxID, params.sid, body.cols, body.rows)),
);
