import { MATCH_LIMITS } from '../core/matching/match-request';
import { commonResponses, okResponse, ref } from './openapi-components';
import { MATCH_EXAMPLE } from './openapi-examples';

/** POST /match-grants-api in the OpenAPI document: the operation and its response schema. */

export function matchGrantsOperation(requestSchema: Record<string, unknown>) {
  return {
    operationId: 'matchGrants',
    summary: 'The open grants an organisation should apply for, each with a 0-100 match score and a plain-English reason',
    description: [
      'Pro and developer tiers only (others: 403 NO_API_ACCESS). Only open grants (posted, deadline today or later, or none) that the profile may apply for are returned:',
      'a grant whose listed applicant types exclude profile.applicant_type or whose own text excludes it, one for 501(c)(3) nonprofits when is_501c3 is false, and a state-specific grant for another state',
      "(or any state-specific grant for a national applicant; states include limits read from the listing's text) are never returned. The score weighs topic (semantic similarity of the grant to mission, sector and focus keywords, plus shared key terms),",
      'eligibility confidence, award size against annual_budget_usd, and time to the deadline; docs/matching.md gives every weight and curve.',
      "A profile gets matches only when some grant's meaning and words both agree with the mission (topic evidence over a calibrated strong level), and then only grants over a calibrated minimum, so a profile with no real fit gets fewer than limit matches, or none, with meta.note saying so.",
      'why_it_fits opens with any eligibility caveat, then states the facts behind the score, each true of the listing. A geography naming no US state is treated as unknown (meta.profile.location.resolved_as) and lowers confidence.',
      'An unknown field is a 400 naming it; naics_code and certifications are accepted and do not affect scoring. The same catalogue and request give the same answer.',
    ].join(' '),
    tags: ['matching'],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: requestSchema,
          examples: {
            ruralHealth: {
              value: {
                profile: {
                  mission: 'We run community health clinics and telehealth for farm families in western Kansas.',
                  sector: 'community health',
                  geography: 'rural Kansas',
                  applicant_type: 'nonprofit',
                  is_501c3: true,
                  annual_budget_usd: 850000,
                },
                focus_keywords: ['rural health', 'telehealth'],
                limit: 10,
              },
            },
          },
        },
      },
    },
    responses: {
      200: okResponse('The matches, highest score first (ties by id)', {
        'application/json': { schema: ref('MatchResponse'), examples: { ruralHealth: { value: MATCH_EXAMPLE } } },
      }),
      ...commonResponses({
        400: 'The body is not a JSON object, or a field is missing, of the wrong type or out of range; error.details names it',
        403: "The key's tier has no grant matching: free and basic (NO_API_ACCESS)",
      }),
    },
  };
}

export const MATCH_RESPONSE = {
  type: 'object',
  required: ['count', 'matches', 'meta'],
  additionalProperties: false,
  properties: {
    count: { type: 'integer', description: 'Number of matches returned' },
    matches: {
      type: 'array',
      items: {
        type: 'object',
        required: [
          'id',
          'title',
          'funder',
          'funder_id',
          'match_score',
          'why_it_fits',
          'deadline',
          'url',
          'amount_min',
          'amount_max',
          'confidence',
          'score_components',
        ],
        additionalProperties: false,
        properties: {
          id: { type: 'string', format: 'uuid', description: 'The grant (GET /grants-api/{id})' },
          title: { type: 'string' },
          funder: { type: 'string', description: "The funder's name" },
          funder_id: { type: 'string', format: 'uuid' },
          match_score: { type: 'integer', minimum: 0, maximum: 100 },
          why_it_fits: {
            type: 'string',
            description:
              'Plain English, blockers first: any eligibility caveat to check ("Check your eligibility first: ..."), then the profile\'s words and focus keywords the grant also uses (in the grant\'s own words), who may apply and where as the listing says, award size against the budget, and the deadline. Every claim is true of the listing',
          },
          deadline: { type: ['string', 'null'], format: 'date' },
          url: { type: ['string', 'null'], format: 'uri', description: 'The listing' },
          amount_min: { type: ['number', 'null'] },
          amount_max: { type: ['number', 'null'] },
          confidence: {
            type: 'string',
            enum: ['high', 'medium', 'low'],
            description:
              'high: the listing names your applicant type and your location is known; each unknown (types not listed, 501(c)(3) status not given, location not resolved) lowers it one step',
          },
          score_components: {
            type: 'object',
            required: ['topic', 'eligibility', 'award_size', 'deadline'],
            additionalProperties: false,
            description: 'Each component of the score, 0 to 100, before weighting (docs/matching.md)',
            properties: Object.fromEntries(
              ['topic', 'eligibility', 'award_size', 'deadline'].map((name) => [name, { type: 'integer', minimum: 0, maximum: 100 }]),
            ),
          },
        },
      },
    },
    meta: {
      type: 'object',
      required: ['response_time_ms', 'limit', 'profile', 'candidates'],
      additionalProperties: false,
      properties: {
        response_time_ms: { type: 'number' },
        limit: { type: 'integer', minimum: 1, maximum: MATCH_LIMITS.max },
        profile: {
          type: 'object',
          description: 'What the profile was understood as',
          properties: {
            applicant_type: { type: ['string', 'null'], description: 'The type scored with; nonprofit when only is_501c3: true was given' },
            location: {
              type: 'object',
              properties: {
                resolved_as: { type: 'string', enum: ['states', 'national', 'unknown'] },
                states: { type: 'array', items: { type: 'string' } },
              },
            },
          },
        },
        candidates: { type: 'integer', description: 'Open grants the profile may apply for that were close enough in meaning to be scored (at most 300)' },
        note: {
          type: 'string',
          description:
            'Present when fewer than limit matches are returned: no strong matches (count 0), or only these; candidates whose topic fit is under the calibrated minimum are never returned (docs/matching.md, "The cut-off")',
        },
      },
    },
  },
};
