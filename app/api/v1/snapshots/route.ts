import { defineRoute } from '@/server/http/define-route';
import { json } from '@/server/http/responses';
import { snapshotService } from '@/server/services';
import { listSnapshotsQuery } from '@/server/spec/snapshot';

export const GET = defineRoute({ query: listSnapshotsQuery }, ({ principal, query }) =>
  json(snapshotService().list(principal.teamId, query.query, query.page, query['page-size'])),
);
