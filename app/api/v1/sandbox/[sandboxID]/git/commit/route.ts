import { defineRoute } from '@/server/http/define-route';
import { json } from '@/server/http/responses';
import { gitService } from '@/server/services/git';
import { sandboxIdParams } from '@/server/spec/common';
import { gitCommitBody } from '@/server/spec/git';

export const POST = defineRoute({ params: sandboxIdParams, body: gitCommitBody }, async ({ principal, params, body }) =>
  json(await gitService().commit(principal.teamId, params.sandboxID, body)),
);
