/**
 * Records keyed by names that come from files (server names, config keys). A plain `{}` treats
 * `__proto__` as its prototype slot, so `record[name] = value` with name `__proto__` would replace
 * the prototype (or, one level deeper, pollute `Object.prototype`). A record without a prototype
 * has no such slot, so `__proto__` is just a name. Pure, so the charts and src/ share it.
 */

/**
 * A prototype-free record holding the own enumerable string-keyed properties of each source,
 * later ones winning. A plain loop, not `Object.assign`: half the time on a record of 10,000
 * servers (~2 ms instead of ~4–6), which every configure copies.
 */
export function nameRecord<T>(...sources: Array<Record<string, T> | undefined>): Record<string, T> {
  const record = Object.create(null) as Record<string, T>;
  for (const source of sources) {
    if (source === undefined) continue;
    for (const key of Object.keys(source)) record[key] = source[key]!;
  }
  return record;
}
