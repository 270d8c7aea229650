/**
 * The key list cursors are signed with (HMAC-SHA256, lambdas/core/query/list-cursor.ts): 32
 * random bytes shared by every instance that serves lists, so a cursor from one answers on
 * another. A Secrets Manager secret in AWS, a file in the local state folder (or memory) locally.
 */
export interface CursorKeySource {
  /** Read once and kept; rejects when the key cannot be read (the list is then a 500, never unsigned). */
  key(): Promise<Uint8Array>;
}

/** The length of a cursor key, in bytes. */
export const CURSOR_KEY_BYTES = 32;

/** A key source that reads once, on first use, and keeps the answer (a failed read is tried again next time). */
export function onceKeySource(read: () => Promise<Uint8Array>): CursorKeySource {
  let pending: Promise<Uint8Array> | undefined;
  return {
    key() {
      pending ??= read()
        .then((key) => {
          if (key.length < CURSOR_KEY_BYTES) throw new Error(`a cursor key must be at least ${CURSOR_KEY_BYTES} bytes, got ${key.length}`);
          return key;
        })
        .catch((error: unknown) => {
          pending = undefined;
          throw error;
        });
      return pending;
    },
  };
}
