import { US_STATE_CODES } from '../../core/geo';
import { FacetCounter, type FacetName, type Facets, type OpportunityKind } from '../../core/query/facets';
import type { FilterRow } from './filter-columns';

/**
 * What the facets read of each row (lambdas/core/query/facets.ts), held in memory by rowid like
 * the filter columns, so counting a result set of any size is one pass over arrays with no
 * document read: the stored status and last live day (the status facet), the deadline, the
 * states, the funder name and the categories as the record spells them.
 */

/** The row columns a FacetRow reads beyond the filter columns, as opportunityRow() writes them. */
export const FACET_COLUMNS = ['funder_name', 'category_names'] as const;

export type FacetRow = Pick<FilterRow, 'status' | 'live_until' | 'deadline_date' | 'states_lo' | 'states_hi'> & {
  funder_name: string;
  /** JSON array of the record's categories as stored. */
  category_names: string;
};

/** The postal codes of a row's two state masks (sqlite-index-schema.ts stateMasks), in US_STATE_CODES order. */
export function statesOfMasks(lo: number, hi: number): string[] {
  const states: string[] = [];
  US_STATE_CODES.forEach((code, bit) => {
    if (bit < 32 ? (lo & (1 << bit)) !== 0 : (hi & (1 << (bit - 32))) !== 0) states.push(code);
  });
  return states;
}

interface Held {
  status: string;
  liveUntil: string;
  deadline: string | null;
  states: readonly string[];
  funder: string;
  categories: readonly string[];
}

const NO_STATES: readonly string[] = [];

/** The rows a count covers: these rowids, those a filter mask keeps, or every row. */
export type FacetRows = { rowids: ArrayLike<number> } | { mask: Uint8Array } | { all: true };

export class FacetColumns {
  private readonly rows: (Held | undefined)[] = [];

  set(rowid: number, row: FacetRow): void {
    const states = row.states_lo === 0 && row.states_hi === 0 ? NO_STATES : statesOfMasks(row.states_lo, row.states_hi);
    this.rows[rowid] = {
      status: row.status, liveUntil: row.live_until, deadline: row.deadline_date, states,
      funder: row.funder_name, categories: JSON.parse(row.category_names) as string[],
    };
  }

  delete(rowid: number): void {
    this.rows[rowid] = undefined;
  }

  /** The facets asked, over the rows given (`rowids`), or over the rows a mask keeps. */
  count(kind: OpportunityKind, names: readonly FacetName[], today: string, rows: FacetRows, idOf: (rowid: number) => string): Facets {
    const counter = new FacetCounter(kind, names, today);
    const add = (rowid: number) => {
      const held = this.rows[rowid];
      if (!held) return;
      counter.add({
        id: idOf(rowid), status: held.status, live: held.liveUntil >= today, categories: held.categories,
        states: held.states, funder_name: held.funder, deadline_date: held.deadline,
      });
    };
    if ('rowids' in rows) for (let i = 0; i < rows.rowids.length; i++) add(rows.rowids[i]!);
    else if ('mask' in rows) for (let rowid = 0; rowid < rows.mask.length; rowid++) { if (rows.mask[rowid] === 1) add(rowid); }
    else for (let rowid = 0; rowid < this.rows.length; rowid++) add(rowid);
    return counter.facets();
  }
}
