import { addDays } from '../dates';

/**
 * Whether a posted, forecasted or open opportunity can still be applied for ("live"), from the
 * record alone and today's date (docs/data-model.md, "Applyable"): its deadline has not passed,
 * its source's archive date has not passed, and it is not a stale listing.
 *
 * A stale listing is an open-ended one (no deadline, or a placeholder deadline far beyond any
 * real one) posted more than STALE_AFTER_YEARS ago: our sources publish no "last updated" date
 * for such listings, Grants.gov re-posts or modifies live standing announcements, and the 2004-15
 * postings of the 2015 search snapshot would otherwise be "open" forever.
 */
export const STALE_AFTER_YEARS = 3;
/**
 * A deadline this far past the posting is a placeholder ("2102-04-13", "2076-08-12"), not a real
 * closing date; the longest real multi-year announcements in the data run about 7 years.
 */
export const PLACEHOLDER_DEADLINE_YEARS = 10;

const DAYS_PER_YEAR = 365.25;

export interface LivenessFields {
  deadline_date: string | null;
  archive_date: string | null;
  created_at: string;
}

/** No deadline, or one more than PLACEHOLDER_DEADLINE_YEARS after posting. Fixed per record: indexed as a field. */
export function isOpenEnded(record: Pick<LivenessFields, 'deadline_date' | 'created_at'>): boolean {
  if (record.deadline_date === null) return true;
  const postedOn = record.created_at.slice(0, 10);
  return record.deadline_date > addDays(postedOn, Math.round(PLACEHOLDER_DEADLINE_YEARS * DAYS_PER_YEAR));
}

const STALE_AFTER_DAYS = Math.round(STALE_AFTER_YEARS * DAYS_PER_YEAR);

/** Open-ended listings created before this date (YYYY-MM-DD) are stale on `today`. */
export function staleBefore(today: string): string {
  return addDays(today, -STALE_AFTER_DAYS);
}

/**
 * The last day the record is live: the earliest of its deadline, its archive date and, for an
 * open-ended listing, the last day before it turns stale; null when nothing ends it. It depends
 * on the record alone, so an index can store it and test liveness as one comparison with today.
 */
export function liveUntil(record: LivenessFields): string | null {
  // Created on day c, an open-ended listing is stale once c < today - STALE_AFTER_DAYS, so its last live day is c + STALE_AFTER_DAYS.
  const lastFreshDay = isOpenEnded(record) ? addDays(record.created_at.slice(0, 10), STALE_AFTER_DAYS) : null;
  let last: string | null = null;
  for (const day of [record.deadline_date, record.archive_date, lastFreshDay]) {
    if (day !== null && (last === null || day < last)) last = day;
  }
  return last;
}

export function isLive(record: LivenessFields, today: string): boolean {
  const last = liveUntil(record);
  return last === null || last >= today;
}
