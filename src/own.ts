/** Look-ups by a client-given name that never reach Object.prototype (`__proto__`, `constructor`, `toString`, ...). */

/** The value `record` holds under `name` itself, never one inherited from Object.prototype. */
export function ownValue<T>(record: Readonly<Record<string, T>>, name: string): T | undefined {
  return Object.hasOwn(record, name) ? record[name] : undefined;
}

/** True for a name that is a property of every plain object (`__proto__`, `constructor`, `toString`, ...): such names are refused as client-chosen keys. */
export function isPrototypeName(name: string): boolean {
  return name in Object.prototype;
}
