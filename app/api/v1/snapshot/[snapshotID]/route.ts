import { defineRoute } from '@/server/http/define-route';
import { noContent } from '@/server/http/responses';
import { snapshotService } from '@/server/services';
import { snapshotIdParams } from '@/server/spec/snapshot';

export const DELETE = defineRoute({ params: snapshotIdParams }, async ({ principal, params }) => {
  await snapshotService().remove(principal.teamId, params.snapshotID);
  return noContent();
});
