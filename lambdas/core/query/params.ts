import * as z from 'zod/mini';
import type { FieldIssue } from '../errors';
import { isStateCode, type StateCode, US_STATE_CODES } from '../geo';
import { unknownNameIssues } from './unknown-names';
import { anyCaseChoice, listPattern, NON_BLANK_PATTERN } from './wire-patterns';

/**
 * Declarative query-parameter specs. One spec drives parsing, the 400 message naming the field,
 * and the OpenAPI parameter object, so the three cannot drift apart.
 */
export type ParamKind =
  | { type: 'integer'; min: number; max: number }
  | { type: 'number'; min: number; max: number }
  | { type: 'boolean' }
  | { type: 'date' }
  | { type: 'enum'; values: readonly string[] }
  | { type: 'enumList'; values: readonly string[] }
  /** `national`: a word accepted beside the codes (lower-cased), for the records with no state restriction. */
  | { type: 'stateList'; national?: string }
  /** `case`: how each item is kept (case-sensitive identifiers must stay as given). */
  | { type: 'patternList'; pattern: RegExp; example: string; hint: string; case: CaseRule }
  | { type: 'text'; maxLength: number };

/** How a value's letters are compared: codes upper-cased, names lower-cased, identifiers exactly as given. */
export type CaseRule = 'upper' | 'lower' | 'exact';

export function inCase(rule: CaseRule, text: string): string {
  return rule === 'upper' ? text.toUpperCase() : rule === 'lower' ? text.toLowerCase() : text;
}

export interface ParamSpec {
  name: string;
  description: string;
  kind: ParamKind;
  default?: string | number | boolean;
  deprecated?: boolean;
}

export type ParamValue = string | number | boolean | string[] | StateCode[];

const isoDate = z.iso.date();
const MAX_LIST_ITEMS = 60;

type Parsed = { ok: true; value: ParamValue } | { ok: false; issue: string };

function parseList(raw: string, check: (item: string) => string | null, what: string): Parsed {
  const items = raw.split(',').map((s) => s.trim());
  if (items.some((s) => s === '')) return { ok: false, issue: `must be a comma-separated list of ${what} with no empty items` };
  if (items.length > MAX_LIST_ITEMS) return { ok: false, issue: `must list at most ${MAX_LIST_ITEMS} ${what}` };
  const out: string[] = [];
  for (const item of items) {
    const normalised = check(item);
    if (normalised === null) return { ok: false, issue: `"${clip(item)}" is not one of the accepted ${what}` };
    if (!out.includes(normalised)) out.push(normalised);
  }
  return { ok: true, value: out };
}

function stateListItem(item: string, national: string | undefined): string | null {
  if (national !== undefined && item.toLowerCase() === national) return national;
  return isStateCode(item.toUpperCase()) ? item.toUpperCase() : null;
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

function parseOne(kind: ParamKind, raw: string): Parsed {
  switch (kind.type) {
    case 'integer': {
      const n = /^[+-]?\d{1,15}$/.test(raw.trim()) ? Number(raw) : NaN;
      if (!Number.isInteger(n) || n < kind.min || n > kind.max) {
        return { ok: false, issue: `must be an integer from ${kind.min} to ${kind.max}` };
      }
      return { ok: true, value: n };
    }
    case 'number': {
      const n = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(raw.trim()) ? Number(raw) : NaN;
      if (!Number.isFinite(n) || n < kind.min || n > kind.max) {
        return { ok: false, issue: `must be a number from ${kind.min} to ${kind.max}` };
      }
      return { ok: true, value: n };
    }
    case 'boolean': {
      const v = raw.trim().toLowerCase();
      if (v === 'true' || v === '1') return { ok: true, value: true };
      if (v === 'false' || v === '0') return { ok: true, value: false };
      return { ok: false, issue: 'must be true or false' };
    }
    case 'date':
      return isoDate.safeParse(raw.trim()).success
        ? { ok: true, value: raw.trim() }
        : { ok: false, issue: 'must be a real calendar date in the form YYYY-MM-DD' };
    case 'enum': {
      const v = raw.trim().toLowerCase();
      return kind.values.includes(v) ? { ok: true, value: v } : { ok: false, issue: `must be one of: ${kind.values.join(', ')}` };
    }
    case 'enumList': {
      const byLower = new Map(kind.values.map((v) => [v.toLowerCase(), v]));
      const parsed = parseList(raw, (item) => byLower.get(item.toLowerCase()) ?? null, `values (${kind.values.join(', ')})`);
      return parsed;
    }
    case 'stateList':
      return parseList(
        raw,
        (item) => stateListItem(item, kind.national),
        kind.national ? `2-letter US state or territory postal codes, or ${kind.national}` : '2-letter US state or territory postal codes',
      );
    case 'patternList':
      return parseList(raw, (item) => (kind.pattern.test(item) ? inCase(kind.case, item) : null), kind.hint);
    case 'text': {
      // Control characters carry no search meaning and can break engines' query parsers.
      const v = raw.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
      if (v === '') return { ok: false, issue: 'must not be empty' };
      if (v.length > kind.maxLength) return { ok: false, issue: `must be at most ${kind.maxLength} characters` };
      return { ok: true, value: v };
    }
  }
}

export interface ParseResult {
  values: Record<string, ParamValue | undefined>;
  issues: FieldIssue[];
}

/**
 * Parses the parameters. An unknown one is an issue naming it (`what` says what it is not, as
 * "a parameter of the grant list"), and so is a known one that is empty, given more than once,
 * or malformed; nothing is silently dropped.
 */
export function parseParams(
  specs: readonly ParamSpec[],
  query: Readonly<Record<string, readonly string[] | undefined>>,
  what = 'a parameter of this endpoint',
): ParseResult {
  const values: Record<string, ParamValue | undefined> = {};
  const issues: FieldIssue[] = unknownNameIssues(
    Object.keys(query),
    specs.map((spec) => spec.name),
    what,
  );
  for (const spec of specs) {
    const given = query[spec.name];
    if (!given || given.length === 0) {
      values[spec.name] = spec.default;
      continue;
    }
    if (given.length > 1) {
      issues.push({ field: spec.name, issue: 'must be given at most once' });
      continue;
    }
    const raw = given[0] ?? '';
    if (raw.trim() === '') {
      issues.push({ field: spec.name, issue: 'must not be empty' });
      continue;
    }
    const parsed = parseOne(spec.kind, raw);
    if (parsed.ok) values[spec.name] = parsed.value;
    else issues.push({ field: spec.name, issue: parsed.issue });
  }
  return { values, issues };
}

/** The JSON Schema of one parameter, for the OpenAPI document: exactly what parseOne accepts. */
export function paramJsonSchema(kind: ParamKind): Record<string, unknown> {
  switch (kind.type) {
    case 'integer':
      return { type: 'integer', minimum: kind.min, maximum: kind.max };
    case 'number':
      return { type: 'number', minimum: kind.min, maximum: kind.max };
    case 'boolean':
      return { type: 'boolean' };
    case 'date':
      return { type: 'string', format: 'date' };
    case 'enum':
      return { type: 'string', enum: [...kind.values] };
    case 'enumList':
      return {
        type: 'string',
        pattern: listPattern(anyCaseChoice(kind.values), MAX_LIST_ITEMS),
        description: `Comma-separated, any of: ${kind.values.join(', ')}`,
        examples: [kind.values.slice(0, 2).join(',')],
      };
    case 'stateList':
      return {
        type: 'string',
        pattern: listPattern(anyCaseChoice(kind.national ? [...US_STATE_CODES, kind.national] : US_STATE_CODES), MAX_LIST_ITEMS),
        examples: ['CA,NY'],
      };
    case 'patternList':
      return { type: 'string', pattern: listPattern(kind.pattern.source.replace(/^\^|\$$/g, ''), MAX_LIST_ITEMS), examples: [kind.example] };
    case 'text':
      return { type: 'string', minLength: 1, maxLength: kind.maxLength, pattern: NON_BLANK_PATTERN };
  }
}
