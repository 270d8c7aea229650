import { API_KEY_PREFIX } from '../core/auth/api-keys';
import { TIER_NAMES, TIERS, type TierName, type TierPolicy } from '../core/auth/tiers';
import { ERROR_CODES, type PublicErrorCode } from '../core/errors';
import { CSV_EXPORT_LIMITS } from '../core/export/csv-export';
import { MATCH_LIMITS } from '../core/matching/match-request';
import { FACET_NAMES, FACET_VALUE_CAP } from '../core/query/facets';
import { CURSOR_LIFETIME_MS } from '../core/query/list-cursor';
import { LIMITS } from '../core/query/list-query';
import { SEMANTIC_SEARCH_LIMITS } from '../core/query/semantic-search-request';
import { HYBRID_SEMANTIC_WEIGHT } from '../core/search/fusion';
import { NO_RESULTS_REASONS } from '../core/search/no-results';
import { FLOOR_RELEVANCE, LEXICAL_FLOOR_RELEVANCE } from '../core/search/relevance';
import { DELIVERY_TIMEOUT_MS } from '../core/webhooks/delivery-policy';
import { DEFAULT_TOLERANCE_SECONDS } from '../core/webhooks/signature';
import { REQUEST_ID_HEADER } from './api-gateway';

/**
 * The getting-started introduction of the API reference: the OpenAPI document's info.description,
 * Markdown that the docs page renders above the operations. It is the one page an outside consumer
 * reads, so it says how to get a key and what every answer means; each number comes from the
 * constant the code enforces, so the page cannot drift from the service.
 */

const count = (n: number) => n.toLocaleString('en-US');
const code = (text: string) => `\`${text}\``;

/** Why each error code is sent, with its status; a new code fails to compile until it is explained here. */
const ERROR_MEANINGS: Record<PublicErrorCode, { status: number; when: string }> = {
  INVALID_PARAMETER: { status: 400, when: 'a parameter or body field is unknown, empty, repeated, malformed or out of range; `details` names each one' },
  UNAUTHORIZED: { status: 401, when: 'no key, or a malformed, unknown, revoked or rotated-out one' },
  FORBIDDEN: { status: 403, when: "the key's tier has no API access" },
  NO_API_ACCESS: { status: 403, when: 'grant matching with a key whose tier does not include it' },
  NOT_FOUND: { status: 404, when: 'no record has this id, or no route has this path' },
  METHOD_NOT_ALLOWED: { status: 405, when: 'the path does not serve this method (the `Allow` header lists those it does)' },
  RATE_LIMITED: {
    status: 429,
    when: "the day's quota is spent (`Retry-After`: the seconds to 00:00 UTC), or a deployment's request rate was exceeded (retry shortly)",
  },
  INTERNAL: { status: 500, when: 'an unexpected error; it is logged with the request id, and the body holds no detail of it' },
  SEARCH_UNAVAILABLE: { status: 503, when: 'the search index or the embedding model is unavailable; keyword search and records by id usually keep working' },
};

const NO_RESULTS_MEANINGS: Record<(typeof NO_RESULTS_REASONS)[number], string> = {
  no_terms: 'the search text has nothing to search (only stop words or punctuation)',
  no_match: 'no record holds the words',
  below_floor: 'nothing reaches the minimum-relevance floor: the query looks off-topic',
  filtered_out: 'records match the text, but the filters exclude them all (`matches_without_filters` says how many)',
};

function tierRow(name: TierName, tier: TierPolicy): string {
  const quota = !tier.apiAccess ? 'no API access' : tier.dailyQuota === null ? 'unlimited' : count(tier.dailyQuota);
  return `| **${name}** | ${quota} | ${tier.matching ? 'yes' : 'no'} | ${tier.webhooks ? 'yes' : 'no'} |`;
}

function throttles(tiers: Readonly<Record<TierName, TierPolicy>>): string {
  return TIER_NAMES.flatMap((name) => {
    const { throttle } = tiers[name];
    return tiers[name].apiAccess && throttle ? [`${name} ${count(throttle.rateLimit)} requests a second (bursts of ${count(throttle.burstLimit)})`] : [];
  }).join(', ');
}

function tiersWith(tiers: Readonly<Record<TierName, TierPolicy>>, has: (tier: TierPolicy) => boolean): string {
  const names = TIER_NAMES.filter((name) => has(tiers[name]));
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : (names[0] ?? 'no');
}

const gettingStarted = () => `## Getting started

1. **Get an API key.** Keys are issued by the service's operators:
   ${code('npm run admin -- keys create --tier pro --owner you@example.org')} prints a new key once
   (${code(`${API_KEY_PREFIX}`)} and 32 letters and digits). Only its hash is stored, so keep it safe.
   Running the service yourself, ${code('npm start')} creates one key per tier and saves them to
   ${code('.local/keys.json')}, readable by you only.
2. **Send it on every request** as ${code('Authorization: Bearer <key>')}. Only this page and
   ${code('GET /openapi.json')} need no key.
3. **Make a first request:**

   \`\`\`sh
   BASE=http://127.0.0.1:3000/functions/v1   # npm start; a deployed stage: https://<api-id>.execute-api.<region>.amazonaws.com/<stage>/functions/v1
   KEY=${API_KEY_PREFIX}…                        # your key
   curl -H "Authorization: Bearer $KEY" "$BASE/grants-api?limit=5"
   curl -H "Authorization: Bearer $KEY" "$BASE/grants-api?search=rural%20broadband&search_mode=hybrid&states=KS&include_national=true"
   \`\`\`

   Or on this page: open **Test Request** on an operation, paste your key into **Bearer Token** and
   press **Send**. Each parameter's example is shown in its row, unticked: tick the ones you want to send.

A list answers with ${code('results')}, ${code('pagination')} and ${code('meta')}; a record by id
(${code('GET /grants-api/{id}')}) is the record itself. By default the lists return what can be
applied for (${code('opportunity_type=open')}): posted grants whose deadline has not passed, forecasted
grants, and active contract solicitations. ${code('opportunity_type=awarded')} returns funded projects,
${code('all')} both.`;

const tiersAndQuotas = (tiers: Readonly<Record<TierName, TierPolicy>>) => `## Tiers and quotas

| tier | requests a day | grant matching | webhooks |
|---|---|---|---|
${TIER_NAMES.map((name) => tierRow(name, tiers[name])).join('\n')}

A key of a tier with no API access gets 403 ${code('FORBIDDEN')}; grant matching with a key of a tier
without it, 403 ${code('NO_API_ACCESS')}. Quotas count requests per key per UTC day and reset at
00:00 UTC. Each key's request rate is limited too: ${throttles(tiers)}, counted in windows of
burst / rate seconds. These are the defaults: a deployment may set its own, and
${code('X-RateLimit-Limit')} always says your daily quota.

### Rate-limit headers

Every answer to a key, errors included, carries:

- ${code('X-RateLimit-Limit')}: the key's daily quota (-1: unlimited);
- ${code('X-RateLimit-Remaining')}: the requests left until 00:00 UTC (-1: unlimited).

When the quota is spent the answer is 429 ${code('RATE_LIMITED')} with ${code('Retry-After')}, the seconds
until 00:00 UTC: retrying sooner fails again. A key over its request rate gets the same 429 with
${code('Retry-After')} the seconds until its window ends (a second or two); refused requests count
against neither.`;

const errors = () => `## Errors and request ids

Every error has the same body:

\`\`\`json
{
  "error": {
    "code": "INVALID_PARAMETER",
    "message": "Invalid parameter: state",
    "details": [{ "field": "state", "issue": "is not a parameter of the grant list; did you mean states?" }],
    "request_id": "1b0fd05b-66fa-4211-b57f-ae79544d85ef"
  }
}
\`\`\`

${ERROR_CODES.map((name) => `- **${ERROR_MEANINGS[name].status}** ${code(name)}: ${ERROR_MEANINGS[name].when}.`).join('\n')}

Every response carries ${code(REQUEST_ID_HEADER)}, and every error body the same id as
${code('error.request_id')}: quote it when you ask about a request. An unknown parameter is refused
rather than ignored, so a typo never widens a query silently.`;

const paging = () => `## Paging

- ${code('limit')} sets the page size (1 to ${LIMITS.pageMax}, default ${LIMITS.pageDefault}) and ${code('offset')}
  skips results (at most ${count(LIMITS.offsetMax)}). ${code('pagination.total')} counts every match,
  ${code('pagination.returned')} the results on this page.
- **Cursors** go deeper: every page with more results after it carries ${code('pagination.next_cursor')}.
  Send it back as ${code('cursor')}, with the same parameters and no ${code('offset')}, for the page right
  after it, in the same order, however deep. A cursor is valid for ${CURSOR_LIFETIME_MS / 3_600_000} hours;
  the last page has none.
- ${code('pagination.total_relation')} is ${code('eq')} when the total is exact (every list and keyword
  search) and ${code('gte')} when it is a lower bound: a semantic or hybrid search that filled its
  window of nearest candidates.
- ${code('count_only=true')} returns only the total.`;

const search = () => `## Search, relevance and the floor

${code('search')} takes text, and ${code('search_mode')} says how it is matched; every filter applies in every mode.

- ${code('keyword')} (the default): full-text BM25 over the title, description and funder. Every
  record holding the words is a result, and identifiers (opportunity, Assistance Listing,
  solicitation, NAICS and agency codes) typed whole are matched exactly and come first.
- ${code('semantic')}: closeness in meaning, by sentence embeddings, above a minimum-relevance floor.
- ${code('hybrid')}: both, fused: ${HYBRID_SEMANTIC_WEIGHT} × the semantic relevance +
  ${Math.round((1 - HYBRID_SEMANTIC_WEIGHT) * 10) / 10} × the keyword strength.

With a search term and no ${code('sort_by')}, results come best first (${code('meta.sort_by')} is
${code('relevance')}). In semantic and hybrid modes each result carries ${code('relevance')}, from 0 to 1:
**${FLOOR_RELEVANCE}** is the floor a query must reach on meaning alone, **${LEXICAL_FLOOR_RELEVANCE}** the
least any match has (a short query its own words confirm), and **1** a match as close as catalogue
records get.

**The floor** keeps off-topic queries from returning noise: "used car prices in Ohio" finds nothing
in semantic and hybrid modes. **An empty answer says why** in ${code('meta.no_results.reason')}:

${NO_RESULTS_REASONS.map((reason) => `- ${code(reason)}: ${NO_RESULTS_MEANINGS[reason]}`).join('\n')}

${code('POST /semantic-search')} searches grants and contracts together (${SEMANTIC_SEARCH_LIMITS.default}
results by default, at most ${SEMANTIC_SEARCH_LIMITS.max}).`;

const facetsAndCsv = () => `## Facets

${code(`facets=${FACET_NAMES.join(',')}`)} (any of them) on ${code('/grants-api')} and ${code('/contracts-api')}
adds ${code('facets')}: the count of each value over the whole filtered result, not only the page, in
every search mode. ${code('category')}, ${code('states')} and ${code('funder')} list at most
${FACET_VALUE_CAP} values, most first. A value passed back as its filter (${code('category=<value>')})
returns exactly its count.

## CSV export

${code('format=csv')} (or an ${code('Accept: text/csv')} header) on any list returns the whole filtered
result as a CSV file instead of a page: from ${code('offset')} on, up to ${count(CSV_EXPORT_LIMITS.maxRows)}
rows and ${CSV_EXPORT_LIMITS.maxBytes / 1_000_000} MB a file. ${code('X-Export-Complete')} says whether the file
reaches the end of the result; when it does not, ${code('X-Export-Next-Offset')} or
${code('X-Export-Next-Cursor')} says where the next file starts.`;

const matchingAndWebhooks = (tiers: Readonly<Record<TierName, TierPolicy>>) => `## Grant matching

${code('POST /match-grants-api')} takes an organisation's profile (its mission, place and applicant type)
and returns the open grants it should apply for, each with a 0-100 ${code('match_score')} and a
plain-English ${code('why_it_fits')}: ${MATCH_LIMITS.default} by default, at most ${MATCH_LIMITS.max}. It is
for the ${tiersWith(tiers, (t) => t.matching)} tiers only; any other key gets 403 ${code('NO_API_ACCESS')}.

## Webhooks

On the ${tiersWith(tiers, (t) => t.webhooks)} tier, the service POSTs an event to your URL when a record is
created or updated, or its deadline nears. Operators add the subscription
(${code('npm run admin -- webhooks add --key-id <key-id> --url https://… --events grant.created,grant.deadline_approaching')},
optionally with a saved search, ${code('--filter "states=KS&category=Health"')}) and give you its
signing secret, shown once. The **Webhooks** section of this reference lists each event with its body
and headers. A receiver should:

- verify ${code('webhook-signature')} ([Standard Webhooks](https://www.standardwebhooks.com/)) over the raw
  body, and refuse a ${code('webhook-timestamp')} more than ${DEFAULT_TOLERANCE_SECONDS / 60} minutes off;
  ${code('X-Service-Signature')} signs the body alone;
- dedupe on ${code('webhook-id')}: delivery is at least once;
- answer 2xx within ${DELIVERY_TIMEOUT_MS / 1_000} seconds, and do the work afterwards.

## The TypeScript client

${code('@gcf/data-service-client')} (${code('clients/typescript')} in the repository) types every call from
this document, pages through whole lists, retries as ${code('Retry-After')} says, and verifies webhook
deliveries.`;

/** The Markdown of info.description for these tiers (TIERS unless a test passes others). */
export function openApiIntroduction(tiers: Readonly<Record<TierName, TierPolicy>> = TIERS): string {
  return [
    'A JSON API over a catalogue of funding opportunities: grants, government contracts and the funders behind them. Filter, sort, page and search them (keyword, semantic or hybrid), count facets, export CSV, match grants to an organisation, and follow changes with signed webhooks.',
    gettingStarted(),
    tiersAndQuotas(tiers),
    errors(),
    paging(),
    search(),
    facetsAndCsv(),
    matchingAndWebhooks(tiers),
  ].join('\n\n');
}
