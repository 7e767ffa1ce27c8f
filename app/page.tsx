import { Dashboard } from '@/components/dashboard/dashboard';
import { requireUser } from '@/server/auth/page-session';

export const metadata = { title: 'Shoal' };

export default async function HomePage() {
  const user = await requireUser();
  return <Dashboard email={user.email} />;
}
