import { defineRoute } from '@/server/http/define-route';
import { json } from '@/server/http/responses';
import { sandboxService } from '@/server/services';
import { sandboxIdParams } from '@/server/spec/common';
import { networkPolicyBody } from '@/server/spec/sandbox';

export const PUT = defineRoute(
  { params: sandboxIdParams, body: networkPolicyBody },
  async ({ principal, params, body }) =>
    json(await sandboxService().setNetworkPolicy(principal.teamId, params.sandboxID, body)),
);
