import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * WebSocket upgrades Shoal answers itself (the PTY connect route). Each handler says whether
 * the request is its own; anything unclaimed goes to Next (its dev server's hot reload).
 */
export type UpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer) => boolean;

export const upgradeHandlers: UpgradeHandler[] = [];
