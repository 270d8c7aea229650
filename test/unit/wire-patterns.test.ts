import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../lambdas/core/errors';
import { parseMatchRequest } from '../../lambdas/core/matching/match-request';
import { LIST_PARAMS } from '../../lambdas/core/query/list-query';
import { type ParamSpec, paramJsonSchema, parseParams } from '../../lambdas/core/query/params';
import { APPLICANT_TYPES } from '../../lambdas/core/records';

/**
 * The OpenAPI document's patterns say exactly what the parsers take: a conformance tool sends what
 * the document allows and expects a 2xx, and sends what it forbids and expects a 4xx.
 */

const accepts = (spec: ParamSpec, raw: string) => parseParams([spec], { [spec.name]: [raw] }).issues.length === 0;
const schemaAccepts = (spec: ParamSpec, raw: string) => {
  const schema = paramJsonSchema(spec.kind) as { pattern?: string; minLength?: number; maxLength?: number };
  if (schema.minLength !== undefined && raw.length < schema.minLength) return false;
  if (schema.maxLength !== undefined && raw.length > schema.maxLength) return false;
  return schema.pattern === undefined || new RegExp(schema.pattern, 'u').test(raw);
};

const spec = (name: string) => [...LIST_PARAMS.grant, ...LIST_PARAMS.contract].find((s) => s.name === name)!;
/** Text built from the pieces these parameters are made of, so that both answers occur often. */
const pieces = (words: string[]) =>
  fc.array(fc.constantFrom(...words, ',', ' ', ', ', '\t', 'x', 'Zz', '', '\u0001'), { maxLength: 8 }).map((parts) => parts.join(''));

describe('list parameter patterns agree with the parser', () => {
  it.each([
    ['status', ['open', 'OPEN', 'Posted', 'closed', 'forecasted', 'upcoming', 'opened']],
    ['set_aside', ['SBA', 'sba', '8a', '8AN', 'WOSB', 'wosbss', 'XYZ']],
    ['states', ['CA', 'ny', 'Tx', 'ZZ', 'C', 'CAL', 'pr', 'national', 'National', 'nation']],
    ['facets', ['status', 'Category', 'states', 'funder', 'deadline_within', 'deadline']],
    ['naics', ['54', '541512', '5415120', '5', 'ab']],
    [
      'funder_id',
      ['13c1d59c-bcf1-5b4d-8b58-b0656c61ba94', '13C1D59C-BCF1-5B4D-8B58-B0656C61BA94', 'cee19b13-3563-513a-aa53-29d55c2c2e43', '13c1d59c', '-b0656c61ba94'],
    ],
    ['category', ['Health', 'education', ' ']],
    ['search', ['rural', 'health', '  ', '\u0007']],
  ])('%s', (name, words) => {
    fc.assert(
      fc.property(pieces(words), (raw) => {
        fc.pre(raw.trim() !== '' || raw === '');
        if (raw === '') return; // an empty value is refused before parsing, and minLength or the pattern refuses it too
        expect(schemaAccepts(spec(name), raw), JSON.stringify(raw)).toBe(accepts(spec(name), raw));
      }),
      { numRuns: 400 },
    );
  });
});

describe('match request patterns agree with the parser', () => {
  const document = (profile: Record<string, unknown>) => JSON.stringify({ profile: { mission: 'Rural clinics', ...profile } });
  const parses = (body: string) => {
    try {
      parseMatchRequest(body);
      return true;
    } catch (error) {
      if (error instanceof ServiceError) return false;
      throw error;
    }
  };

  it('applicant types in any case, with "_" as "_", spaces or hyphens', () => {
    for (const type of APPLICANT_TYPES) {
      expect(parses(document({ applicant_type: type.toUpperCase() }))).toBe(true);
      expect(parses(document({ applicant_type: ` ${type.replaceAll('_', ' - ')} ` }))).toBe(true);
      expect(parses(document({ applicant_type: `${type}s` }))).toBe(false);
    }
  });

  it('a blank mission or focus keyword is refused', () => {
    expect(parses(JSON.stringify({ profile: { mission: ' \u0001 ' } }))).toBe(false);
    expect(parses(JSON.stringify({ profile: { mission: 'x' }, focus_keywords: ['ok', '\t'] }))).toBe(false);
    expect(parses(JSON.stringify({ profile: { mission: 'x' }, focus_keywords: ['ok'] }))).toBe(true);
  });
});
