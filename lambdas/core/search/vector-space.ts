import type { VectorSpace } from '../../ports/embedder';

export function describeSpace(space: VectorSpace): string {
  return `${space.embedder} (${space.dimensions} dimensions)`;
}

export function sameSpace(a: VectorSpace, b: VectorSpace): boolean {
  return a.embedder === b.embedder && a.dimensions === b.dimensions;
}

/** The index was built with other vectors than the configured embedder makes. */
export class VectorSpaceMismatch extends Error {
  constructor(
    readonly where: string,
    readonly found: VectorSpace,
    readonly expected: VectorSpace,
    remedy: string,
  ) {
    super(`${where} holds vectors from ${describeSpace(found)}, but the service is configured with ${describeSpace(expected)}. ${remedy}`);
    this.name = 'VectorSpaceMismatch';
  }
}
