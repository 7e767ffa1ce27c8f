import type { ReactNode } from 'react';
import { FeedbackProvider } from '@/components/ui/feedback';
import { THEME_BOOT_SCRIPT } from '@/components/ui/theme';
import './globals.css';

export const metadata = { title: 'Shoal', description: 'Sandboxes with a terminal, an editor and git' };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en" data-theme="dark" suppressHydrationWarning>
      <head>
        <script dangerouslySetInnerHTML={{ __html: THEME_BOOT_SCRIPT }} />
      </head>
      <body>
        <FeedbackProvider>{children}</FeedbackProvider>
      </body>
    </html>
  );
}
