import { timingSafeEqual } from 'node:crypto';

/** Whether two secrets are equal, compared in constant time (a wrong length is not secret: every valid value has the same one). */
export function constantTimeEqual(a: string, b: string): boolean {
  const given = Buffer.from(a, 'utf8');
  const expected = Buffer.from(b, 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
