import { LIST_FILTERS, type ListFilter } from '../../lambdas/core/query/filter-registry';
import type { Contract, Grant } from '../../lambdas/core/records';

/**
 * An independent, plain-code statement of the list semantics (DESIGN.md section 3), used to check
 * the index's answers record by record. It shares no code with the adapters on purpose; of the
 * service it reads only the declared filters' entries (filter-registry.ts), whose shapes it
 * states here once, from the raw parameters.
 */
export type Opportunity = Grant | Contract;

const GEO_STATES: Record<string, string> = { texas: 'TX', california: 'CA', 'new york': 'NY' };

const DAY_MS = 86_400_000;
const shiftDays = (isoDate: string, days: number) => new Date(Date.parse(`${isoDate}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/**
 * Whether a not-awarded record can no longer be applied for on `today`: its deadline or archive
 * date has passed, or it is an open-ended listing (no deadline, or one more than ten years of
 * 365.25 days after posting) posted more than three such years ago (docs/data-model.md).
 */
function lapsed(record: Opportunity, today: string): boolean {
  if (record.deadline_date !== null && record.deadline_date < today) return true;
  if (record.archive_date !== null && record.archive_date < today) return true;
  const postedOn = record.created_at.slice(0, 10);
  const openEnded = record.deadline_date === null || record.deadline_date > shiftDays(postedOn, 3653);
  return openEnded && record.created_at < shiftDays(today, -1096);
}

export function matches(record: Opportunity, params: Record<string, string>, today: string): boolean {
  const type = params.opportunity_type ?? 'open';
  if (type !== 'all' && record.opportunity_type !== type) return false;

  // Without a status, "open" opportunities are what can be applied for (posted, forecasted, open contracts, not lapsed).
  const statuses = params.status ?? (type === 'open' ? ('naics' in record ? 'open' : 'open,forecasted') : undefined);
  if (statuses) {
    const ok = statuses.split(',').some((s) => {
      const gone = lapsed(record, today);
      const live = record.status === 'posted' || (record.status === 'open' && 'naics' in record);
      switch (s) {
        case 'open':
          return live && !gone;
        case 'posted':
          return record.status === 'posted';
        case 'forecasted':
        case 'upcoming':
          return record.status === 'forecasted' && !gone;
        case 'closed':
          return record.status === 'closed' || ((live || record.status === 'forecasted') && gone);
        default:
          throw new Error(`oracle: unknown status ${s}`);
      }
    });
    if (!ok) return false;
  }
  if (params.states) {
    const wanted = params.states.toUpperCase().split(',');
    const national = record.states.length === 0;
    const hit = record.states.some((s: string) => wanted.includes(s));
    if (!(hit || (national && params.include_national === 'true'))) return false;
  }
  if (params.geography) {
    const g = params.geography.toLowerCase();
    const text = (record.geography ?? '').toLowerCase();
    if (g === 'national' && !(record.states.length === 0 && !text.includes('international'))) return false;
    if (g === 'international' && !(record.states.length === 0 && text.includes('international'))) return false;
    const local = text.startsWith('local:');
    if (g === 'local' && !(record.states.length > 0 && local)) return false;
    if (g === 'state' && !(record.states.length > 0 && !local)) return false;
    if (GEO_STATES[g] && !(record.states as string[]).includes(GEO_STATES[g]!)) return false;
  }
  for (const filter of LIST_FILTERS) {
    const raw = params[filter.param];
    if (raw !== undefined && !declaredFilterKeeps(filter, record, raw)) return false;
  }
  return true;
}

/**
 * A declared filter on one record, from the parameter as sent: terms keep a record holding any of
 * the values (ignoring case unless the case rule is exact), prefix one whose value begins with any
 * of them, range one whose value (its day, for a date parameter) compares as the operator says.
 * A record without the field never matches.
 */
function declaredFilterKeeps(filter: ListFilter, record: Opportunity, raw: string): boolean {
  const stored = (record as unknown as Record<string, unknown>)[filter.field] ?? null;
  if (stored === null) return false;
  const { shape } = filter;
  const given = filter.spec.kind.type === 'text' ? [raw.trim()] : raw.split(',').map((item) => item.trim());
  switch (shape.type) {
    case 'terms': {
      const fold = (text: string) => (shape.case === 'upper' ? text.toUpperCase() : shape.case === 'lower' ? text.toLowerCase() : text);
      const held = (Array.isArray(stored) ? stored : [stored]).map((value) => fold(String(value)));
      return given.some((value) => held.includes(fold(value)));
    }
    case 'prefix':
      return given.some((prefix) => String(stored).startsWith(prefix));
    case 'range': {
      const [value, bound] = shape.of === 'number' ? [Number(stored), Number(raw)] : [String(stored).slice(0, 10), raw.trim()];
      return shape.op === 'gt' ? value > bound : shape.op === 'gte' ? value >= bound : shape.op === 'lt' ? value < bound : value <= bound;
    }
  }
}

type Sortable = { id: string } & Record<string, unknown>;

/** Sort with nulls last in both directions and ties broken by id in the sort's direction. */
export function sortRecords<T extends Sortable>(records: T[], field: string, order: 'asc' | 'desc'): T[] {
  const sign = order === 'asc' ? 1 : -1;
  const key = (r: T): string | number | null => {
    const v = r[field] as string | number | null;
    return typeof v === 'string' && (field === 'title' || field === 'name') ? v.toLowerCase() : v;
  };
  return [...records].sort((a, b) => {
    const va = key(a);
    const vb = key(b);
    if (va === null && vb !== null) return 1;
    if (vb === null && va !== null) return -1;
    if (va !== null && vb !== null && va !== vb) return (va < vb ? -1 : 1) * sign;
    return (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) * sign;
  });
}
