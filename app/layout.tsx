import type { ReactNode } from 'react';

export const metadata = { title: 'Shoal', description: 'Sandboxes with a terminal, an editor and git' };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
