import { singleton } from '../../registry';
import { getRuntime } from '../../runtime';
import { sandboxService } from '../index';
import { PtyService } from './pty-service';

export { PtyService } from './pty-service';
export type { PtySessionHandle, PtySocket } from './session';

/** The PTY session registry, shared by the route handlers and the WebSocket upgrade. */
export function ptyService(): PtyService {
  return singleton('pty.sessions', () => new PtyService(sandboxService(), getRuntime()));
}
