/**
 * Records keyed by names that come from files (server names, config keys). A plain `{}` treats
 * `__proto__` as its prototype slot, so `record[name] = value` with name `__proto__` would replace
 * the prototype (or, one level deeper, pollute `Object.prototype`). A record without a prototype
 * has no such slot, so `__proto__` is just a name. Pure, so the charts and src/ share it.
 */

/** A prototype-free record holding the own enumerable properties of each source, later ones winning. */
export function nameRecord<T>(...sources: Array<Record<string, T> | undefined>): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, ...sources);
}
