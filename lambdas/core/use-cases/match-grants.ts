import type { SemanticQuery } from '../../ports/search-index';
import { type ApplicantLocation, describeLocation, resolveApplicantLocation } from '../matching/applicant-location';
import { applicantTypeOf } from '../matching/grant-fit';
import type { MatchRequest } from '../matching/match-request';
import { type GrantMatch, profileTopicText, rankMatches } from '../matching/rank-matches';
import { MATCH_SCORING } from '../matching/scoring-config';
import type { ListQuery, OpportunityFilters } from '../query/list-query';
import type { ApplicantType } from '../records';
import { type SearchPorts, semanticQueryOf } from './list-records';

export interface MatchResponse {
  count: number;
  matches: GrantMatch[];
  meta: {
    response_time_ms: number;
    limit: number;
    /** What the profile was understood as: the applicant type scored with, and the location. */
    profile: { applicant_type: ApplicantType | null; location: ReturnType<typeof describeLocation> };
    /** Open, eligible grants near enough in meaning to be scored. */
    candidates: number;
    /** Set when fewer than `limit` grants fit well enough to return: why, in plain English. */
    note?: string;
  };
}

export interface MatchOutcome {
  matches: GrantMatch[];
  location: ApplicantLocation;
  applicantType: ApplicantType | undefined;
  candidates: number;
  /** Candidates whose topic evidence is under the cut-off. */
  belowCutoff: number;
  bestEvidence: number;
}

/**
 * The hard filters: open grants (posted, deadline today or later or none) that an applicant of
 * this type and place may apply for. Applied inside the index's k-NN search, so no eligible grant
 * is lost to a top-k cut made before filtering.
 */
export function matchFilters(request: MatchRequest, location: ApplicantLocation): OpportunityFilters {
  const type = applicantTypeOf(request.profile);
  const filters: OpportunityFilters = {
    opportunityType: 'open',
    status: [{ stored: 'posted', live: true }],
    includeNational: true,
  };
  // A national applicant gets national grants only (no state's grants are its own); an unknown
  // location keeps state grants, scored lower, with the reason saying so.
  if (location.kind === 'states') filters.states = [...location.states];
  else if (location.kind === 'national') filters.states = [];
  if (type) filters.applicant = { type, lacks501c3: type === 'nonprofit' && request.profile.is501c3 === false };
  return filters;
}

/**
 * POST /match-grants-api: the profile's topic is embedded once, the nearest open grants it may
 * apply for are read from the index (candidateWindow of them), and each is scored and explained
 * (lambdas/core/matching).
 */
export async function matchGrants(ports: SearchPorts, request: MatchRequest, today: string): Promise<MatchOutcome> {
  const location = resolveApplicantLocation(request.profile.geography);
  const topicText = profileTopicText(request);
  const profileQuery = await semanticQueryOf(ports, topicText);
  // A mission's cosines run lower than a query's (relevance.ts, profileFloor); the cut-off decides what matches.
  const floor = profileQuery.scale.profileFloor;
  // Relevance reads 0.5 at the candidate floor, as topic-fit.ts expects.
  const semantic: SemanticQuery = { ...profileQuery, scale: { ...profileQuery.scale, floor }, fixedFloor: floor };
  const query: ListQuery & { kind: 'grant' } = {
    kind: 'grant',
    filters: matchFilters(request, location),
    search: { text: topicText, mode: 'semantic' },
    sort: { field: 'relevance', order: 'desc' },
    limit: MATCH_SCORING.candidateWindow,
    offset: 0,
    countOnly: false,
    today,
  };
  const page = await ports.index.query('grant', query, semantic);
  const candidates = page.results.map(({ relevance, ...grant }) => ({ grant, relevance: relevance ?? 0 }));
  const { matches, belowCutoff, bestEvidence } = rankMatches(candidates, { request, location, today, population: page.total });
  return { matches, location, applicantType: applicantTypeOf(request.profile), candidates: candidates.length, belowCutoff, bestEvidence };
}

/** Why a response holds fewer matches than asked for: there are no strong matches, or only these. */
export function shortfallNote(outcome: MatchOutcome, limit: number): string | undefined {
  const found = outcome.matches.length;
  if (found >= limit) return undefined;
  const weak =
    outcome.belowCutoff > 0
      ? `${outcome.belowCutoff.toLocaleString('en-US')} other open ${outcome.belowCutoff === 1 ? 'grant' : 'grants'} you may apply for ${outcome.belowCutoff === 1 ? 'was' : 'were'} too far from your mission to recommend`
      : 'no other open grant you may apply for is near your mission';
  if (found === 0) return `No strong matches: ${weak}. Describe your work in more detail, add focus keywords, or check again as new grants are posted.`;
  return `Only ${found} strong ${found === 1 ? 'match' : 'matches'}: ${weak}.`;
}

export function matchResponse(outcome: MatchOutcome, request: MatchRequest, elapsedMs: number): MatchResponse {
  const note = shortfallNote(outcome, request.limit);
  return {
    count: outcome.matches.length,
    matches: outcome.matches,
    meta: {
      response_time_ms: Math.round(elapsedMs * 100) / 100,
      limit: request.limit,
      profile: { applicant_type: outcome.applicantType ?? null, location: describeLocation(outcome.location) },
      candidates: outcome.candidates,
      ...(note === undefined ? {} : { note }),
    },
  };
}
