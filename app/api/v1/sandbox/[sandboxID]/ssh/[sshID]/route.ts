import { defineRoute } from '@/server/http/define-route';
import { noContent } from '@/server/http/responses';
import { sshAccessService } from '@/server/services';
import { sshAccessParams } from '@/server/spec/ssh';

export const DELETE = defineRoute({ params: sshAccessParams }, ({ principal, params }) => {
  sshAccessService().remove(principal.teamId, params.sandboxID, params.sshID);
  return noContent();
});
