import { defineRoute } from '@/server/http/define-route';
import { json } from '@/server/http/responses';
import { gitService } from '@/server/services/git';
import { sandboxIdParams } from '@/server/spec/common';
import { gitCloneBody } from '@/server/spec/git';

export const POST = defineRoute({ params: sandboxIdParams, body: gitCloneBody }, async ({ principal, params, body }) =>
  json(await gitService().clone(principal.teamId, params.sandboxID, body)),
);
