import { defineRoute } from '@/server/http/define-route';
import { json } from '@/server/http/responses';
import { ptyService } from '@/server/services/pty';
import { sandboxIdParams } from '@/server/spec/common';
import { createPtyBody } from '@/server/spec/pty';

export const POST = defineRoute({ params: sandboxIdParams, body: createPtyBody }, async ({ principal, params, body }) =>
  json(await ptyService().create(principal.teamId, params.sandboxID, body), 201),
);

export const GET = defineRoute({ params: sandboxIdParams }, async ({ principal, params }) =>
  json(await ptyService().list(principal.teamId, params.sandboxID)),
);
