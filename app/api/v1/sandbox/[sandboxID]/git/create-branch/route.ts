import { defineRoute } from '@/server/http/define-route';
import { json } from '@/server/http/responses';
import { gitArgv, gitService } from '@/server/services/git';
import { sandboxIdParams } from '@/server/spec/common';
import { gitCreateBranchBody } from '@/server/spec/git';

export const POST = defineRoute(
  { params: sandboxIdParams, body: gitCreateBranchBody },
  async ({ principal, params, body }) =>
    json(await gitService().run(principal.teamId, params.sandboxID, gitArgv.createBranch(body))),
);
