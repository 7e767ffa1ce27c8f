/**
 * Process-wide singletons. Next's route bundles and the custom server load separate copies of
 * our modules, so anything that must be shared (store, runtime, PTY sessions…) lives on
 * globalThis under one key and is created on first use.
 */
const REGISTRY_KEY = Symbol.for('shoal.registry');

type Registry = Map<string, unknown>;

function registry(): Registry {
  const holder = globalThis as unknown as Record<symbol, Registry | undefined>;
  let map = holder[REGISTRY_KEY];
  if (!map) {
    map = new Map();
    holder[REGISTRY_KEY] = map;
  }
  return map;
}

export function singleton<T>(name: string, create: () => T): T {
  const map = registry();
  if (!map.has(name)) map.set(name, create());
  return map.get(name) as T;
}

export function replaceSingleton<T>(name: string, value: T): void {
  registry().set(name, value);
}
