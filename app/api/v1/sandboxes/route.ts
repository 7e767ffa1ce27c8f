import { defineRoute } from '@/server/http/define-route';
import { json } from '@/server/http/responses';
import { sandboxService } from '@/server/services';
import { listSandboxesQuery } from '@/server/spec/sandbox';

export const GET = defineRoute({ query: listSandboxesQuery }, ({ principal, query }) =>
  json(
    sandboxService().list(principal.teamId, {
      state: query.state,
      sort: query.sort,
      order: query['order-by'],
      page: query.page,
      pageSize: query['page-size'],
    }),
  ),
);
