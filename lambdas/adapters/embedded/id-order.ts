/**
 * Every record's place in id order, by rowid: rankings break ties by id (DESIGN.md section 3),
 * and with each record's place as a number a whole ranking sorts in one native sort, ties
 * included, instead of comparing id strings group by group. Built on first use after a new
 * record arrives (sorting every id is the costly part); an update keeps every place, and a
 * removal only takes its record's place away.
 */
export interface IdRanks {
  /** By rowid: the place of the record's id among all ids of the kind (0 first). */
  rankOf: Int32Array;
  /** By place: the rowid of the record there. */
  rowidAt: Int32Array;
}

export function idRanksOf(ids: ReadonlyMap<number, string>): IdRanks {
  const entries = [...ids].sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  const maxRowid = entries.reduce((max, [rowid]) => Math.max(max, rowid), -1);
  const rankOf = new Int32Array(maxRowid + 1).fill(-1);
  const rowidAt = new Int32Array(entries.length);
  entries.forEach(([rowid], rank) => {
    rankOf[rowid] = rank;
    rowidAt[rank] = rowid;
  });
  return { rankOf, rowidAt };
}

/** The id ranks of one kind's records, kept until a new record arrives. */
export class IdOrder {
  private ranks: IdRanks | null = null;

  constructor(private readonly ids: ReadonlyMap<number, string>) {}

  get(): IdRanks {
    this.ranks ??= idRanksOf(this.ids);
    return this.ranks;
  }

  invalidate(): void {
    this.ranks = null;
  }

  /** A removed record has no place any more (rankings drop it); the others keep theirs. */
  forget(rowid: number): void {
    if (this.ranks && rowid < this.ranks.rankOf.length) this.ranks.rankOf[rowid] = -1;
  }
}
