import type { Grant } from '../records';
import type { ApplicantLocation } from './applicant-location';
import { awardSizeFit, deadlineFit, eligibilityFit, passesHardFilters } from './grant-fit';
import type { MatchRequest } from './match-request';
import { MATCH_SCORING } from './scoring-config';
import { TopicScorer } from './topic-fit';
import { whyItFits } from './why-it-fits';

export type MatchConfidence = 'high' | 'medium' | 'low';

export interface GrantMatch {
  id: string;
  title: string;
  funder: string;
  funder_id: string;
  /** 0 to 100. */
  match_score: number;
  why_it_fits: string;
  deadline: string | null;
  url: string | null;
  amount_min: number | null;
  amount_max: number | null;
  /** How much of the eligibility is confirmed by the listing and the profile. */
  confidence: MatchConfidence;
  /** Each component of the score, 0 to 100 (docs/matching.md). */
  score_components: { topic: number; eligibility: number; award_size: number; deadline: number };
}

/** A grant that passed the hard filters, with its semantic relevance to the profile (lambdas/core/search/relevance.ts). */
export interface MatchCandidate {
  grant: Grant;
  relevance: number;
}

export interface RankingContext {
  request: MatchRequest;
  location: ApplicantLocation;
  today: string;
  /** Eligible grants near enough to the mission to be candidates, of which these are the nearest (the index's total; defaults to the candidates given). */
  population?: number;
}

/** The text that stands for the profile's topic, embedded and matched against the grants. */
export function profileTopicText(request: MatchRequest): string {
  return [request.profile.mission, request.profile.sector, ...request.focusKeywords].filter((part) => part !== undefined).join('\n');
}

const percentOf = (value: number) => Math.round(value * 100);

export interface RankedMatches {
  matches: GrantMatch[];
  /** Eligible candidates left out because their topic evidence is under the cut-off (scoring-config.ts, cutoff). */
  belowCutoff: number;
  /** The best topic evidence of any eligible candidate: what the cut-off is calibrated on (`npm run eval:match`). */
  bestEvidence: number;
}

/** The cut-off (scoring-config.ts): nothing unless some candidate is a strong match, then every candidate over the minimum. */
export function cutoffFor(bestEvidence: number): number {
  const { strongEvidence, minEvidence } = MATCH_SCORING.cutoff;
  return bestEvidence >= strongEvidence ? minEvidence : Number.POSITIVE_INFINITY;
}

/**
 * Scores every candidate (scoring-config.ts), explains each score, and returns the best `limit`
 * over the cut-off, highest score first; equal scores are ordered by id, so the same catalogue
 * and request always give the same answer. A grant the applicant may not apply for
 * (passesHardFilters, which also reads exclusions in the listing's text) is dropped first.
 */
export function rankMatches(candidates: readonly MatchCandidate[], context: RankingContext): RankedMatches {
  const { request, location, today } = context;
  const { practicalShare, practicalWeights } = MATCH_SCORING;
  const eligible = candidates.filter(({ grant }) => passesHardFilters(grant, request.profile, location, today));
  const topics = new TopicScorer(
    [request.profile.mission, request.profile.sector ?? ''].join('\n'),
    request.focusKeywords,
    eligible.map((c) => c.grant),
    context.population,
  );
  const all = eligible.map(({ grant, relevance }) => {
    const topic = topics.fit(grant, relevance);
    const eligibility = eligibilityFit(grant, request.profile, location);
    const awardSize = awardSizeFit(grant, request.profile.annualBudgetUsd);
    const deadline = deadlineFit(grant, today);
    const practical =
      practicalWeights.eligibility * eligibility.score + practicalWeights.award_size * awardSize.score + practicalWeights.deadline * deadline.score;
    const score = topic.score * (1 - practicalShare + practicalShare * practical);
    return { grant, score, topic, eligibility, awardSize, deadline };
  });
  const bestEvidence = all.reduce((best, { topic }) => Math.max(best, topic.evidence), 0);
  const cutoff = cutoffFor(bestEvidence);
  const scored = all.filter(({ topic }) => topic.evidence >= cutoff);
  scored.sort((a, b) => b.score - a.score || (a.grant.id < b.grant.id ? -1 : a.grant.id > b.grant.id ? 1 : 0));

  const matches = scored.slice(0, request.limit).map(({ grant, score, topic, eligibility, awardSize, deadline }): GrantMatch => {
    const unknowns =
      (eligibility.applicants.kind === 'unknown' ||
      eligibility.charity501c3 === 'not_stated' ||
      eligibility.charity501c3 === 'lacks' ||
      eligibility.narrowerGroup !== null
        ? 1
        : 0) + (eligibility.geography.kind === 'state_unconfirmed' || location.kind === 'unknown' ? 1 : 0);
    return {
      id: grant.id,
      title: grant.title,
      funder: grant.funder_name,
      funder_id: grant.funder_id,
      match_score: Math.min(100, Math.max(0, Math.round(score * 100))),
      why_it_fits: whyItFits(grant, { topic: topics.explain(grant, topic), eligibility, awardSize, deadline }, location),
      deadline: grant.deadline_date,
      url: grant.listing_url,
      amount_min: grant.amount_min,
      amount_max: grant.amount_max,
      confidence: unknowns === 0 ? 'high' : unknowns === 1 ? 'medium' : 'low',
      score_components: {
        topic: percentOf(topic.score),
        eligibility: percentOf(eligibility.score),
        award_size: percentOf(awardSize.score),
        deadline: percentOf(deadline.score),
      },
    };
  });
  return { matches, belowCutoff: all.length - scored.length, bestEvidence };
}
