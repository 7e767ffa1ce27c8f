import { defineRoute } from '@/server/http/define-route';
import { json } from '@/server/http/responses';
import { sandboxService } from '@/server/services';
import { sandboxIdParams } from '@/server/spec/common';

export const POST = defineRoute({ params: sandboxIdParams }, async ({ principal, params }) =>
  json(await sandboxService().resume(principal.teamId, params.sandboxID), 200),
);
