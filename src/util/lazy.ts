// The one lazy-load policy: what an idle agent does not need (a library, a built-in module,
// the /docs page, the sendfile addon) is made on its first use, once, never at start-up.
// Measured reasons stand beside each use (jsonwebtoken 13 ms, node:crypto ~6 ms of a start).
// Every lazy thing is named here so that a test can check that a start loads none of them.

export interface Lazy<A extends unknown[], T> {
  /** Makes the value on the first call (with that call's arguments); every call returns it. */
  (...args: A): T;
  /** The value once made (for a promise: its result once resolved), else undefined. */
  now(): Awaited<T> | undefined;
}

/** Names of every lazy thing (true once made): read by test/unit-bundle.test.ts through the global symbol. */
const registry: Map<string, boolean> = ((globalThis as Record<symbol, unknown>)[Symbol.for('device-agent.lazy')] ??= new Map()) as Map<
  string,
  boolean
>;

export function lazy<A extends unknown[], T>(name: string, make: (...args: A) => T): Lazy<A, T> {
  registry.set(name, false);
  let made = false;
  let value: T;
  let ready: Awaited<T> | undefined;
  const get = ((...args: A): T => {
    if (!made) {
      made = true;
      registry.set(name, true);
      value = make(...args);
      if (value instanceof Promise) {
        // A failed load stays failed (a missing module does not appear later); callers see the rejection.
        value.then(
          (v: Awaited<T>) => {
            ready = v;
          },
          () => {},
        );
      } else {
        ready = value as Awaited<T>;
      }
    }
    return value;
  }) as Lazy<A, T>;
  get.now = () => ready;
  return get;
}
