import type { AssistanceListing } from '../../records';
import { plainText } from '../source-values';

/**
 * The Assistance Listings (CFDA programs) a Grants.gov feed names for an opportunity, whatever
 * its shape: "12.005|Program title" entries joined by ";" (the tracker CSV), plain numbers, lists
 * of them (search2's cfdaList, the XML extract's repeated CFDANumber), a list's Python repr (a
 * scraper's "['19.033']"), or objects (simpler.grants.gov's `{assistance_listing_number,
 * program_title}`, fetchOpportunity's `{cfdaNumber, programTitle}`). Values that are not a listing
 * number ("NA", "Not Available") are dropped; a number named twice is kept once, with its title.
 */

const LISTING_NUMBER = /\b(\d{2}\.[0-9A-Z]{3})\b/gi;

function fromObject(item: Record<string, unknown>): AssistanceListing[] {
  const number = item.assistance_listing_number ?? item.cfdaNumber ?? item.cfda_number ?? item.number;
  const title = item.program_title ?? item.programTitle ?? item.title ?? null;
  return fromText(typeof number === 'string' || typeof number === 'number' ? String(number) : '').map((listing) => ({
    ...listing,
    program_title: titleText(title) ?? listing.program_title,
  }));
}

function titleText(value: unknown): string | null {
  const text = plainText(value).replace(/\s+/g, ' ').trim();
  return text === '' ? null : text;
}

/** "93.242", "12.005|Program title", "['19.033', '19.040']" or "10.310; 10.311". */
function fromText(text: string): AssistanceListing[] {
  const found: AssistanceListing[] = [];
  for (const entry of text.split(/;/)) {
    const [numbers = '', title] = entry.split('|', 2);
    for (const match of numbers.matchAll(LISTING_NUMBER)) {
      found.push({ number: match[1]!.toUpperCase(), program_title: title === undefined ? null : titleText(title) });
    }
  }
  return found;
}

export function assistanceListingsOf(value: unknown): AssistanceListing[] {
  const items = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  const listings = items.flatMap((item): AssistanceListing[] => {
    if (item !== null && typeof item === 'object') return fromObject(item as Record<string, unknown>);
    return typeof item === 'string' || typeof item === 'number' ? fromText(String(item)) : [];
  });
  const byNumber = new Map<string, AssistanceListing>();
  for (const listing of listings) {
    const known = byNumber.get(listing.number);
    if (!known || (known.program_title === null && listing.program_title !== null)) byNumber.set(listing.number, listing);
  }
  return [...byNumber.values()];
}
