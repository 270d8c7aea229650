import type { Clock } from '../../lambdas/ports/clock';

/** A clock that stands still where the test puts it. */
export function movableClock(start: string): Clock & { set(iso: string): void } {
  let now = new Date(start);
  return {
    now: () => new Date(now),
    set: (iso) => {
      now = new Date(iso);
    },
  };
}
