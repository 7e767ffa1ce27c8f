import { Ide } from '@/components/ide/ide';
import { requireUser } from '@/server/auth/page-session';

export async function generateMetadata({ params }: { params: Promise<{ sandboxID: string }> }) {
  const { sandboxID } = await params;
  return { title: `${sandboxID} · Shoal` };
}

export default async function SandboxPage({ params }: { params: Promise<{ sandboxID: string }> }) {
  await requireUser();
  const { sandboxID } = await params;
  return <Ide sandboxId={sandboxID} />;
}
