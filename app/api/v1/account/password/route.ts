import { defineRoute } from '@/server/http/define-route';
import { noContent } from '@/server/http/responses';
import { accountService } from '@/server/services/account';
import { changePasswordBody } from '@/server/spec/account';

export const POST = defineRoute({ body: changePasswordBody }, async ({ principal, body }) => {
  await accountService().changePassword(principal.userId, body.current_password, body.new_password);
  return noContent();
});
