import { defineRoute } from '@/server/http/define-route';
import { json } from '@/server/http/responses';
import { sandboxService } from '@/server/services';
import { sandboxIdParams } from '@/server/spec/common';
import { createSnapshotBody } from '@/server/spec/sandbox';

export const POST = defineRoute(
  { params: sandboxIdParams, body: createSnapshotBody },
  async ({ principal, params, body }) =>
    json(
      await sandboxService().snapshot(principal.teamId, params.sandboxID, body.name, body.kill_sandbox_after ?? false),
      201,
    ),
);
