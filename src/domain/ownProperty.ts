/**
 * Sets `target[key]` as an own data property. A plain assignment with a caller-controlled key such
 * as "__proto__" would replace the object's prototype instead; lookups by such keys use `Map` or
 * `Object.hasOwn` throughout the code base for the same reason.
 */
export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
