import { decode } from 'html-entities';
import { reject } from './rejection';

/**
 * Readers for source field values. Public feeds write the same thing many ways ("Not Available",
 * "$1,200.00", `="0123"`, four date formats); these turn them into our types or reject the record
 * with a reason naming the field, so a mapper reads like the field-mapping table it implements.
 */

const PLACEHOLDERS = new Set(['', 'n/a', 'na', 'none', 'null', 'not available', 'not applicable', 'undefined', '-']);

/** Excel-protected cells such as `="0123"` (NSF exports) hold the text between the quotes. */
function unwrapExcelText(text: string): string {
  const match = /^="(.*)"$/s.exec(text);
  return match ? match[1]! : text;
}

/** A field as trimmed text; null when missing, empty or a placeholder such as "Not Available". */
export function textOf(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return textOf(value[0]);
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return null;
  const text = unwrapExcelText(String(value).trim()).trim();
  return PLACEHOLDERS.has(text.toLowerCase()) ? null : text;
}

/** The first of several fields that has text. */
export function firstText(source: Readonly<Record<string, unknown>>, ...fields: string[]): string | null {
  for (const field of fields) {
    const text = textOf(source[field]);
    if (text !== null) return text;
  }
  return null;
}

/** A field that may hold one value, a list (XML repeats, JSON arrays) or a delimited string. */
export function listOf(value: unknown, separator: RegExp = /[,;|]/): string[] {
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(separator) : value === undefined || value === null ? [] : [value];
  return items.map(textOf).filter((item): item is string => item !== null);
}

/** A required field: its text, or the record is rejected. */
export function requiredText(source: Readonly<Record<string, unknown>>, ...fields: string[]): string {
  return firstText(source, ...fields) ?? reject(`missing required field ${fields.join(' / ')}`);
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isRealDate(year: number, month: number, day: number): boolean {
  if (year < 1900 || year > 2199 || month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!);
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

interface DateParts {
  year: number;
  month: number;
  day: number;
  time: string | null;
}

// YYYY-MM-DD[Thh:mm[:ss[.fff]][Z|±hh:mm]], MM/DD/YYYY[ hh:mm…], MMDDYYYY.
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?))?$/;
const US_DATE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:\s+(\d{1,2}:\d{2}(?::\d{2})?(?:\s*[AP]M)?))?$/i;
const COMPACT_DATE = /^(\d{2})(\d{2})(\d{4})$/;

function dateParts(text: string, field: string): DateParts {
  let match = ISO_DATE.exec(text);
  let parts: DateParts | null = null;
  if (match) parts = { year: +match[1]!, month: +match[2]!, day: +match[3]!, time: match[4] ?? null };
  else if ((match = US_DATE.exec(text))) parts = { year: +match[3]!, month: +match[1]!, day: +match[2]!, time: null };
  else if ((match = COMPACT_DATE.exec(text))) parts = { year: +match[3]!, month: +match[1]!, day: +match[2]!, time: null };
  if (!parts) reject(`${field}: "${text}" is not a date (expected YYYY-MM-DD, MM/DD/YYYY, MMDDYYYY or ISO 8601)`);
  if (!isRealDate(parts.year, parts.month, parts.day)) reject(`${field}: "${text}" is an impossible date`);
  return parts;
}

/**
 * A calendar date (YYYY-MM-DD) or null when the field is empty. An ISO timestamp keeps the date
 * as the source wrote it: a deadline of 2026-08-19T10:00:00-05:00 is the 19th where it was set.
 */
export function parseDate(value: unknown, field: string): string | null {
  const text = textOf(value);
  if (text === null) return null;
  const { year, month, day } = dateParts(text, field);
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
}

/** An instant in UTC (ISO 8601, `Z`) or null; a bare date is midnight UTC, an offset is honoured. */
export function parseDateTime(value: unknown, field: string): string | null {
  const text = textOf(value);
  if (text === null) return null;
  const parts = dateParts(text, field);
  const date = `${pad(parts.year, 4)}-${pad(parts.month)}-${pad(parts.day)}`;
  if (!parts.time || !ISO_DATE.test(text)) return `${date}T00:00:00Z`;
  const zone = /(?:Z|[+-]\d{2}:?\d{2})$/.test(parts.time) ? '' : 'Z';
  const instant = new Date(`${date}T${parts.time}${zone}`.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  if (Number.isNaN(instant.getTime())) reject(`${field}: "${text}" is an impossible time`);
  return instant.toISOString().replace('.000Z', 'Z');
}

/** A US dollar amount or null when empty; "$1,200.50" and 1200.5 both read as 1200.5. Negative amounts are rejected. */
export function parseAmount(value: unknown, field: string): number | null {
  const text = textOf(value);
  if (text === null) return null;
  const normalised = text.replace(/^\$|[$,\s]/g, '');
  const amount = Number(normalised);
  if (normalised === '' || !Number.isFinite(amount)) reject(`${field}: "${text}" is not an amount`);
  if (amount < 0) reject(`${field}: negative amount ${text}`);
  return amount;
}

const BLOCK_TAGS = /<\s*(?:br|\/p|p|\/div|div|\/li|li|\/h[1-6]|h[1-6]|\/tr|tr|\/ul|ul|\/ol|ol)\b[^>]*>/gi;
// Inline markup can sit inside a word ("un<b>usual</b>"): it goes without a trace.
const INLINE_TAGS = /<\s*\/?\s*(?:a|b|i|u|em|strong|span|font|sup|sub|small|abbr)\b[^>]*>/gi;

/**
 * Plain text from a source's HTML-ish description: tags removed (block tags become line breaks),
 * entities decoded, whitespace tidied. Entities are decoded after the tags are removed, so text
 * that describes markup ("&lt;b&gt;") stays text.
 */
export function plainText(value: unknown): string {
  const text = typeof value === 'string' ? value : (textOf(value) ?? '');
  const stripped = text
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<\s*(script|style)\b[\s\S]*?<\s*\/\s*\1\s*>/gi, ' ')
    .replace(BLOCK_TAGS, '\n')
    .replace(INLINE_TAGS, '')
    .replace(/<\/?[a-z][^>]*>/gi, ' ');
  return decode(stripped, { level: 'html5' })
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t\f\v\u00a0]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** An absolute http(s) URL, or null when the field is empty or not a usable URL. */
export function urlOf(value: unknown): string | null {
  const text = textOf(value);
  if (text === null) return null;
  const candidate = /^www\./i.test(text) ? `https://${text}` : text;
  try {
    const url = new URL(candidate);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** A title: one line, no markup. Long text (a description standing in for a title) is cut at a word boundary. */
export function titleOf(value: unknown, maxLength = 200): string | null {
  const text = plainText(value).replace(/\s+/g, ' ');
  if (text === '') return null;
  if (text.length <= maxLength) return text;
  const cut = text.slice(0, maxLength - 1);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), maxLength / 2))}…`;
}

/** A required title: one line of plain text, or the record is rejected naming the field. */
export function requiredTitle(source: Readonly<Record<string, unknown>>, field: string, maxLength = 500): string {
  return titleOf(source[field], maxLength) ?? reject(`missing required field ${field}`);
}
