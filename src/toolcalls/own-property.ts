/**
 * Sets `key` on an object built from model output as a plain own property, whatever the key:
 * `target[key] = value` with the key `__proto__` would replace the object's prototype instead (and
 * hand a tool handler inherited properties it never saw as arguments).
 *
 * @param target - the object being built.
 * @param key - a key the model wrote.
 * @param value - its value.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * The path of the first `__proto__` key in a value built from model output (`args.a.__proto__`), or
 * undefined when there is none. Only own keys are looked at; arrays and objects are walked, to a
 * bounded depth.
 * @param value - parsed arguments.
 * @param path - the name of `value` in the returned path.
 */
export function findProtoKey(value: unknown, path = 'arguments', depth = 0): string | undefined {
  if (depth > 64 || value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findProtoKey(value[i], `${path}[${i}]`, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    if (key === '__proto__') return `${path}.__proto__`;
    const found = findProtoKey((value as Record<string, unknown>)[key], `${path}.${key}`, depth + 1);
    if (found) return found;
  }
  return undefined;
}
