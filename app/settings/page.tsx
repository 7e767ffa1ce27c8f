import { Settings } from '@/components/settings/settings';
import { requireUser } from '@/server/auth/page-session';

export const metadata = { title: 'Settings · Shoal' };

export default async function SettingsPage() {
  const user = await requireUser();
  return <Settings email={user.email} />;
}
