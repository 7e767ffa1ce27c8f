import type http from 'node:http';
import type { ShoalConfig } from './config';
import { sshGatewayFeature } from './ssh/feature';
import { ptyFeature } from './ws/pty-upgrade';
import { egressFeature } from './egress/feature';

/**
 * Features that hook into the custom server rather than Next's routes (the PTY WebSocket, the
 * SSH gateway, the egress proxy). Each is started once the HTTP server listens and stopped on
 * shutdown. To add one, append it to `features` below.
 */
export interface FeatureContext {
  config: ShoalConfig;
  httpServer: http.Server;
}

export interface ServerFeature {
  name: string;
  start(context: FeatureContext): Promise<void> | void;
  stop?(): Promise<void> | void;
}

export const features: ServerFeature[] = [ptyFeature, sshGatewayFeature, egressFeature];
