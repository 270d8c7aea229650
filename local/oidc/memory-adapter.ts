import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';

/**
 * oidc-provider's storage for the local server: sessions, interactions, codes and grants in this
 * process's memory (a restart signs everyone out, which is fine locally). ID tokens are JWTs and
 * need none of it: they verify against the signing keys, which are kept in the state folder.
 * Our own rather than the library's bundled one, which warns on every start that it is for
 * quick starts only.
 */
export function memoryAdapterFactory(now: () => number = Date.now): AdapterFactory {
  const items = new Map<string, { payload: AdapterPayload; expiresAt: number }>();
  const sessionsByUid = new Map<string, string>();

  const live = (key: string): AdapterPayload | undefined => {
    const item = items.get(key);
    if (!item) return undefined;
    if (item.expiresAt > now()) return item.payload;
    items.delete(key);
    return undefined;
  };

  // Expired items are dropped when read, and all of them now and then, so abandoned sign-ins do not pile up.
  let writes = 0;
  const sweep = () => {
    const at = now();
    for (const [key, item] of items) if (item.expiresAt <= at) items.delete(key);
    for (const [uid, id] of sessionsByUid) if (!items.has(`Session:${id}`)) sessionsByUid.delete(uid);
  };

  return (model: string): Adapter => {
    const keyOf = (id: string) => `${model}:${id}`;
    return {
      async upsert(id, payload, expiresIn) {
        if (++writes % 100 === 0) sweep();
        items.set(keyOf(id), { payload, expiresAt: expiresIn === undefined ? Number.POSITIVE_INFINITY : now() + expiresIn * 1000 });
        if (model === 'Session' && payload.uid) sessionsByUid.set(payload.uid, id);
      },
      async find(id) {
        return live(keyOf(id));
      },
      async findByUid(uid) {
        const id = sessionsByUid.get(uid);
        return id === undefined ? undefined : live(keyOf(id));
      },
      async findByUserCode() {
        // The device flow is off.
        return undefined;
      },
      async consume(id) {
        const payload = live(keyOf(id));
        if (payload) payload.consumed = Math.floor(now() / 1000);
      },
      async destroy(id) {
        const payload = live(keyOf(id));
        if (payload?.uid) sessionsByUid.delete(payload.uid);
        items.delete(keyOf(id));
      },
      async revokeByGrantId(grantId) {
        for (const [key, item] of items) if (item.payload.grantId === grantId) items.delete(key);
      },
    };
  };
}
