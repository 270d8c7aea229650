import { agencyDisplayName, agencyKeyOf } from '../agency-names';
import type { SourceFormat, SourceRecord } from '../mapped-record';
import { firstText, parseDateTime, plainText, requiredText, textOf, urlOf } from '../source-values';

/**
 * SAM.gov Federal Hierarchy organisations (departments, agencies, offices), as the Federal
 * Program Inventory extracted them: the funders behind federal grants and contracts.
 */

/** The hierarchy writes its own name in capitals; `agencyName` is the same name in mixed case when it matches. */
function funderName(source: SourceRecord): string {
  const name = requiredText(source, 'name');
  const mixedCase = textOf(source.agencyName);
  return mixedCase && agencyKeyOf(mixedCase) === agencyKeyOf(name) ? mixedCase.replace(/\s+/g, ' ') : agencyDisplayName(name);
}

/** Descriptions carry literal "/n" line breaks. */
function summaryOf(source: SourceRecord): string | null {
  const text = firstText(source, 'description', 'summary');
  if (text === null) return null;
  const summary = plainText(text.replace(/\/n/g, '\n'));
  return summary === '' ? null : summary;
}

/** The hierarchy has no website field; an agency's own description sometimes names its site. */
function websiteOf(summary: string | null): string | null {
  const mention = summary?.match(/\b(?:https?:\/\/|www\.)[^\s,;()]+[^\s,;().]/i)?.[0];
  return mention ? urlOf(mention) : null;
}

export const FEDERAL_HIERARCHY: SourceFormat = {
  id: 'sam-federal-hierarchy',
  description: 'SAM.gov Federal Hierarchy organisations (JSON; FPI organizations.json)',
  matches: (source) => source.orgKey !== undefined && source.fullParentPathName !== undefined,
  provenance: [{ repo: 'EOP-OMB/federal-program-inventory', path: /^data_processing\/extracted\/organizations\.json$/ }],
  map(source) {
    const summary = summaryOf(source);
    return {
      kind: 'funder',
      record: {
        name: funderName(source),
        website: websiteOf(summary),
        summary,
        created_at: parseDateTime(source.createdDate, 'createdDate') ?? parseDateTime(source.startDate, 'startDate'),
        source: 'sam.gov',
        source_id: requiredText(source, 'orgKey'),
      },
    };
  },
};

export const FUNDER_FORMATS: readonly SourceFormat[] = [FEDERAL_HIERARCHY];
