import { redirect } from 'next/navigation';
import { LoginForm } from '@/components/login/login-form';
import { currentUser } from '@/server/auth/page-session';

export const metadata = { title: 'Sign in · Shoal' };

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  const { next } = await searchParams;
  // Only same-site paths: `next` comes from the address bar.
  const target = typeof next === 'string' && next.startsWith('/') && !next.startsWith('//') ? next : '/';
  if (await currentUser()) redirect(target);
  return (
    <main className="login-page">
      <LoginForm next={target} />
    </main>
  );
}
