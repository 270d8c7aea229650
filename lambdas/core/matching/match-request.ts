import * as z from 'zod/mini';
import { type FieldIssue, invalidParameters } from '../errors';
import { jsonObjectBody } from '../json-body';
import { unknownNameIssues } from '../query/unknown-names';
import { anyCasePattern, NON_BLANK_PATTERN } from '../query/wire-patterns';
import { APPLICANT_TYPES, type ApplicantType, described } from '../records';

/** Bounds of POST /match-grants-api (interface sections 4 and 8; the text lengths are ours). */
export const MATCH_LIMITS = {
  default: 10,
  max: 25,
  missionMaxLength: 5_000,
  shortTextMaxLength: 200,
  focusKeywords: 20,
  focusKeywordMaxLength: 60,
  certifications: 20,
  budgetMax: 1e13,
} as const;

/** A message that says "is required" for a missing value and what was expected otherwise. */
const expected = (what: string) => ({ error: (issue: { input: unknown }) => (issue.input === undefined ? 'is required' : `must be ${what}`) });

const shortText = (description: string) =>
  z.optional(
    z.nullable(
      described(
        z.string(expected('a string')).check(z.maxLength(MATCH_LIMITS.shortTextMaxLength, `must be at most ${MATCH_LIMITS.shortTextMaxLength} characters`)),
        description,
      ),
    ),
  );

/** What applicantTypeOf takes: a type in any case, its "_" written as "_" or a run of spaces and hyphens, padded with spaces. */
const APPLICANT_TYPE_PATTERN = new RegExp(
  `^\\s*(?:${APPLICANT_TYPES.map((type) => type.split('_').map(anyCasePattern).join('(?:_|[\\s-]+)')).join('|')})\\s*$`,
);

const ProfileSchema = z.strictObject(
  {
    mission: described(
      z
        .string(expected('a string'))
        .check(
          z.maxLength(MATCH_LIMITS.missionMaxLength, `must be at most ${MATCH_LIMITS.missionMaxLength} characters`),
          z.regex(new RegExp(NON_BLANK_PATTERN), 'must not be empty'),
        ),
      'What the organisation does, in its own words: the primary signal',
    ),
    sector: shortText('Focus area, e.g. "community health"; improves topical ranking'),
    geography: shortText('Where the applicant is: a state ("Texas", "tx"), a place ("Austin, TX", "rural Kansas") or national ("nationwide", "USA")'),
    applicant_type: z.optional(
      z.nullable(
        described(
          z.string(expected(`one of: ${APPLICANT_TYPES.join(', ')}`)).check(z.regex(APPLICANT_TYPE_PATTERN, `must be one of: ${APPLICANT_TYPES.join(', ')}`)),
          `One of ${APPLICANT_TYPES.join(', ')} (case and "-" / " " for "_" are forgiven)`,
        ),
      ),
    ),
    is_501c3: z.optional(z.nullable(described(z.boolean(expected('true or false')), 'Whether the organisation holds 501(c)(3) status'))),
    annual_budget_usd: z.optional(
      z.nullable(
        described(
          z
            .number(expected('a number'))
            .check(z.positive('must be greater than 0'), z.lte(MATCH_LIMITS.budgetMax, `must be at most ${MATCH_LIMITS.budgetMax}`)),
          'Annual operating budget in USD; scores how well each award size fits',
        ),
      ),
    ),
    naics_code: z.optional(
      z.nullable(
        described(z.string(expected('a string')).check(z.regex(/^\d{2,6}$/, 'must be a NAICS code of 2 to 6 digits')), 'Accepted; does not affect scoring'),
      ),
    ),
    certifications: z.optional(
      z.nullable(
        described(
          z
            .array(z.string(expected('a string')).check(z.maxLength(100, 'must be at most 100 characters')), expected('an array of strings'))
            .check(z.maxLength(MATCH_LIMITS.certifications, `must hold at most ${MATCH_LIMITS.certifications} entries`)),
          'Accepted; does not affect scoring',
        ),
      ),
    ),
  },
  expected('an object with at least a mission'),
);

/**
 * The request body. An unknown field is a 400 (strict objects); null is the same as an absent
 * optional field. This schema is also the OpenAPI document's request body.
 */
export const MatchRequestSchema = z.strictObject({
  profile: described(ProfileSchema, 'The organisation looking for grants'),
  focus_keywords: z.optional(
    z.nullable(
      described(
        z
          .array(
            z
              .string(expected('a string'))
              .check(
                z.maxLength(MATCH_LIMITS.focusKeywordMaxLength, `must be at most ${MATCH_LIMITS.focusKeywordMaxLength} characters`),
                z.regex(new RegExp(NON_BLANK_PATTERN), 'must not be empty'),
              ),
            expected('an array of strings'),
          )
          .check(z.maxLength(MATCH_LIMITS.focusKeywords, `must hold at most ${MATCH_LIMITS.focusKeywords} keywords`)),
        'Words or phrases a grant should mention; each one found boosts its topic score',
      ),
    ),
  ),
  limit: z.optional(
    z.nullable(
      described(
        z
          .number(expected('an integer'))
          .check(
            z.int(`must be an integer from 1 to ${MATCH_LIMITS.max}`),
            z.gte(1, `must be an integer from 1 to ${MATCH_LIMITS.max}`),
            z.lte(MATCH_LIMITS.max, `must be an integer from 1 to ${MATCH_LIMITS.max}`),
          ),
        `Matches to return, 1 to ${MATCH_LIMITS.max} (default ${MATCH_LIMITS.default})`,
      ),
    ),
  ),
});

export interface MatchProfile {
  mission: string;
  sector?: string;
  geography?: string;
  applicantType?: ApplicantType;
  is501c3?: boolean;
  annualBudgetUsd?: number;
}

export interface MatchRequest {
  profile: MatchProfile;
  /** Trimmed, de-duplicated without regard to case, in the order given. */
  focusKeywords: string[];
  limit: number;
}

// Control characters carry no meaning in a profile and can upset the engines' parsers.
const cleanText = (text: string) =>
  text
    .replace(/[\u0000-\u001f\u007f]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

function fieldOf(path: readonly PropertyKey[]): string {
  return path.reduce<string>((name, key) => (typeof key === 'number' ? `${name}[${key}]` : name ? `${name}.${String(key)}` : String(key)), '') || 'body';
}

/** The fields each object of the body takes, by its path. */
const KNOWN_FIELDS: Record<string, readonly string[]> = {
  '': Object.keys(MatchRequestSchema.def.shape),
  profile: Object.keys(ProfileSchema.def.shape),
};

/** A zod issue as the 400's details: an unknown field is named by itself, with a "did you mean". */
function issueFields(issue: z.core.$ZodIssue): FieldIssue[] {
  const path = fieldOf(issue.path);
  if (issue.code !== 'unrecognized_keys') return [{ field: path, issue: issue.message }];
  const at = path === 'body' ? '' : path;
  return unknownNameIssues(issue.keys, KNOWN_FIELDS[at] ?? [], at ? `a field of ${at}` : 'a field of the request body', at ? `${at}.` : '');
}

function applicantTypeOf(text: string): ApplicantType | undefined {
  const normal = text
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  return APPLICANT_TYPES.find((type) => type === normal);
}

/**
 * The body of POST /match-grants-api, validated: a 400 names every field that is missing, of the
 * wrong type or out of range. Blank optional texts count as absent; a blank mission or focus
 * keyword is an error (a blank keyword would silently match nothing).
 */
export function parseMatchRequest(body: string | null): MatchRequest {
  const parsed = jsonObjectBody(body, '{"profile": {"mission": "..."}, "focus_keywords": [...], "limit": 1-25}');
  const result = z.safeParse(MatchRequestSchema, parsed);
  if (!result.success) throw invalidParameters(result.error.issues.flatMap(issueFields));
  const { profile, focus_keywords: keywords, limit } = result.data;

  const issues: FieldIssue[] = [];
  // The schema has refused a blank mission or keyword (NON_BLANK_PATTERN), so neither cleans to ''.
  const mission = cleanText(profile.mission);
  let applicantType: ApplicantType | undefined;
  if (profile.applicant_type != null) {
    applicantType = applicantTypeOf(profile.applicant_type);
    if (!applicantType) issues.push({ field: 'profile.applicant_type', issue: `must be one of: ${APPLICANT_TYPES.join(', ')}` });
  }
  const focusKeywords: string[] = [];
  (keywords ?? []).forEach((keyword) => {
    const text = cleanText(keyword);
    if (!focusKeywords.some((k) => k.toLowerCase() === text.toLowerCase())) focusKeywords.push(text);
  });
  if (issues.length > 0) throw invalidParameters(issues);

  const optionalText = (text: string | null | undefined) => {
    const clean = text == null ? '' : cleanText(text);
    return clean === '' ? undefined : clean;
  };
  return {
    profile: {
      mission,
      sector: optionalText(profile.sector),
      geography: optionalText(profile.geography),
      applicantType,
      is501c3: profile.is_501c3 ?? undefined,
      annualBudgetUsd: profile.annual_budget_usd ?? undefined,
    },
    focusKeywords,
    limit: limit ?? MATCH_LIMITS.default,
  };
}
