import type { Transport } from '@modelcontextprotocol/client';

type Key = 'onmessage' | 'onerror' | 'onclose';
export type Handler<K extends Key> = NonNullable<Transport[K]>;

/**
 * Every handler set on `transport[key]`, before or after, is replaced by `wrap(handler)`, once.
 * The SDK composes its own handlers with those it finds on the transport and calls both, so a
 * wrapper installed the usual way (read, then set) would see the message only after the SDK had.
 * Wrappers compose: one installed over another wraps each handler first, then hands it to the
 * other, so the first installed sees each message first.
 */
export function wrapEachHandler<K extends Key>(transport: Transport, key: K, wrap: (handler: Handler<K>) => Handler<K>): void {
  const wrapped = new WeakSet<Handler<K>>();
  const guard = (handler: Handler<K>): Handler<K> => {
    const guarded = wrap(handler);
    wrapped.add(guarded);
    return guarded;
  };
  const outer = Object.getOwnPropertyDescriptor(transport, key);
  if (outer?.set && outer.get) {
    const { get, set } = outer;
    Object.defineProperty(transport, key, {
      configurable: true,
      enumerable: true,
      get,
      set: (handler: Transport[K]) => set.call(transport, handler && (wrapped.has(handler) ? handler : guard(handler))),
    });
    const first = get.call(transport) as Transport[K];
    if (first) set.call(transport, first);
    return;
  }
  const first = transport[key];
  let current = first && guard(first);
  Object.defineProperty(transport, key, {
    configurable: true,
    enumerable: true,
    get: () => current,
    set: (handler: Transport[K]) => {
      current = handler && (wrapped.has(handler) ? handler : guard(handler));
    },
  });
}
