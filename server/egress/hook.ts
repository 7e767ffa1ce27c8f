import { RuntimeUnavailable } from '../errors';
import { singleton } from '../registry';
import type { NetworkPolicy } from '../spec/common';
import type { SandboxRecord } from '../store/sandboxes';

/**
 * What the sandbox service asks of network egress enforcement (`server/egress`). Only custom
 * policies need it: allow-all and deny-all are plain Docker networking. Kept free of heavy
 * imports: the route bundles load this file, the enforcer itself lives in the custom server and
 * registers here when the egress feature starts.
 */
export interface EgressHook {
  /** Environment for a container created under a custom policy (CA bundle variables). */
  containerEnv(): Record<string, string>;
  /** After the container of a custom sandbox started: firewall rules, proxy session, CA. */
  attach(sandboxId: string, containerId: string, policy: NetworkPolicy): Promise<void>;
  /** A running sandbox's policy changes, where the old or the new one is custom. */
  changePolicy(sandboxId: string, containerId: string, from: NetworkPolicy, to: NetworkPolicy): Promise<void>;
  /** Before the container of a custom sandbox is removed: rules, sessions and its CA go. */
  detach(sandboxId: string): Promise<void>;
  /** End of each reconcile pass: re-establishes and sweeps rules (throttled inside). */
  reconcile(records: SandboxRecord[]): Promise<void>;
}

interface Slot {
  hook: EgressHook | null;
  waiters: Array<(hook: EgressHook) => void>;
}

function slot(): Slot {
  return singleton<Slot>('egress.hook', () => ({ hook: null, waiters: [] }));
}

export function registerEgressHook(hook: EgressHook): void {
  const current = slot();
  current.hook = hook;
  for (const waiter of current.waiters.splice(0)) waiter(hook);
}

/** The registered hook, or null (the egress feature has not started). */
export function registeredEgressHook(): EgressHook | null {
  return slot().hook;
}

/** The hook, waiting a little for the egress feature to start; 503 when it never does. */
export async function egressHook(timeoutMs = 15_000): Promise<EgressHook> {
  const current = slot();
  if (current.hook) return current.hook;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      current.waiters = current.waiters.filter((waiter) => waiter !== done);
      reject(
        new RuntimeUnavailable('Network egress enforcement is not running; custom network policies are unavailable'),
      );
    }, timeoutMs);
    const done = (hook: EgressHook) => {
      clearTimeout(timer);
      resolve(hook);
    };
    current.waiters.push(done);
  });
}
