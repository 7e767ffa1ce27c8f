import { defineRoute } from '@/server/http/define-route';
import { noContent } from '@/server/http/responses';
import { apiKeyService } from '@/server/services';
import { apiKeyIdParams } from '@/server/spec/account';

export const DELETE = defineRoute({ params: apiKeyIdParams }, ({ principal, params }) => {
  apiKeyService().revoke(principal.teamId, params.keyID);
  return noContent();
});
