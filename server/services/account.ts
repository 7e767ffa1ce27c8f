import { hashPassword, verifyPassword } from '../auth/passwords';
import { BadRequest, NotFound, PermissionDenied } from '../errors';
import { singleton } from '../registry';
import { getStore, type Store } from '../store';

/** The signed-in user's own account (password). */
export class AccountService {
  constructor(private readonly store: Store) {}

  /** `userId` is absent for API-key callers: a key belongs to a team, not to a person. */
  async changePassword(userId: string | undefined, currentPassword: string, newPassword: string): Promise<void> {
    if (!userId) throw new BadRequest('Changing a password needs a signed-in user; API keys cannot do it');
    const user = this.store.users.get(userId);
    if (!user) throw new NotFound('User', userId);
    if (!(await verifyPassword(currentPassword, user.password_hash))) {
      throw new PermissionDenied('The current password is wrong');
    }
    this.store.users.setPasswordHash(user.id, await hashPassword(newPassword));
  }
}

export function accountService(): AccountService {
  return singleton('service.account', () => new AccountService(getStore()));
}
