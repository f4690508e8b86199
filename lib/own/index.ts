/**
 * Lookups in plain-object tables by a key that comes from outside (a model key, a tool name a
 * model chose, a role id, a shared-context key, a YAML key). `table[key]` and `key in table` also
 * find what every object inherits — `constructor`, `toString`, `hasOwnProperty`, `__proto__` —
 * so an unknown name would look registered. These see only the table's own entries. Pure.
 *
 * ESLint forbids `key in table` with a non-literal key (eslint.config.mjs); use these instead.
 */

/** True when `table` itself (not its prototype) has `key`. */
export function hasOwnKey(table: object, key: PropertyKey): boolean {
  return Object.prototype.hasOwnProperty.call(table, key);
}

/** `table[key]` when `table` itself has `key`, else undefined. */
export function ownValue<V>(table: Readonly<Record<string, V>>, key: string): V | undefined {
  return hasOwnKey(table, key) ? table[key] : undefined;
}

/**
 * Sets `target[key] = value` as an own, enumerable data property, also for `__proto__` (an
 * assignment would change the object's prototype instead).
 */
export function setOwn<V>(target: Record<string, V>, key: string, value: V): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}
