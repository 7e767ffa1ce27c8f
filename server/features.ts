/**
 * Features that hook into the custom server (WebSocket routes, the SSH gateway) register
 * themselves when imported here.
 */
export {};
