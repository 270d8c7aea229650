import type { Funder } from '../records';
import { agencyDisplayName, agencyKeyOf } from './agency-names';
import { agencyFunderIdOf } from './identity';
import type { FunderReference } from './mapped-record';

/**
 * Links records to funders by agency name. Built from the funders already stored plus those
 * imported in this run. A record links to the first agency it names that a funder file described;
 * otherwise to a minimal funder (summary and website unknown) for the most specific agency it
 * names, created on first use. The choice depends only on the funder files and the record itself,
 * never on the order records arrive in, so re-importing in any order changes nothing.
 */
export class FunderDirectory {
  /** Funders a funder file described (they have a source id). */
  private readonly described = new Map<string, Funder>();
  /** Funders made up from an agency name a record gave. */
  private readonly named = new Map<string, Funder>();

  constructor(funders: Iterable<Funder> = []) {
    for (const funder of funders) this.add(funder);
  }

  /** Makes a funder findable by its name. When two share a name the choice does not depend on order. */
  add(funder: Funder): void {
    const key = agencyKeyOf(funder.name);
    if (key === '') return;
    const byKey = funder.source_id === null ? this.named : this.described;
    const current = byKey.get(key);
    if (!current || preferred(funder, current)) byKey.set(key, funder);
  }

  /** The funder for a reference, and whether it is new (the caller stores it with the record). */
  resolve(reference: FunderReference, newFunder: { source: string; createdAt: string }): { funder: Funder; created: boolean } | null {
    const names = reference.names.map((name) => name.trim()).filter((name) => agencyKeyOf(name) !== '');
    for (const name of names) {
      const known = this.described.get(agencyKeyOf(name));
      if (known) return { funder: known, created: false };
    }
    const first = names[0];
    if (first === undefined) return null;
    const key = agencyKeyOf(first);
    const known = this.named.get(key);
    if (known) return { funder: known, created: false };
    const funder: Funder = {
      id: agencyFunderIdOf(key),
      name: agencyDisplayName(first),
      website: null,
      summary: null,
      created_at: newFunder.createdAt,
      source: newFunder.source,
      source_id: null,
    };
    return { funder, created: true };
  }
}

/** Described over bare, then by id: a deterministic pick between funders sharing a name. */
function preferred(candidate: Funder, current: Funder): boolean {
  const described = (funder: Funder) => (funder.summary ? 0 : 1);
  if (described(candidate) !== described(current)) return described(candidate) < described(current);
  return candidate.id < current.id;
}
