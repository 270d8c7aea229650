/**
 * Binary search over a sorted sequence: the first index in [0, length) at which `holds` is true,
 * given that it is false before some index and true from there on; `length` when it never holds.
 */
export function firstIndexWhere(length: number, holds: (index: number) => boolean): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (holds(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
