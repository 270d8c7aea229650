import { AWARD_FORMATS } from './awards';
import { CONTRACT_FORMATS } from './contracts';
import { FUNDER_FORMATS } from './funders/federal-hierarchy';
import { GRANT_FORMATS } from './grants';
import type { SourceFormat, SourceRecord } from './mapped-record';

/** Every importer, in detection order. Funders come first so records can link to them. */
export const SOURCE_FORMATS: readonly SourceFormat[] = [...FUNDER_FORMATS, ...GRANT_FORMATS, ...CONTRACT_FORMATS, ...AWARD_FORMATS];

export const SOURCE_FORMAT_IDS: readonly string[] = SOURCE_FORMATS.map((format) => format.id);

export function sourceFormatById(id: string): SourceFormat | undefined {
  return SOURCE_FORMATS.find((format) => format.id === id);
}

/** Sources we recognise but do not import, with the reason a rejection gives. */
const NOT_IMPORTED: readonly { repo: string; path: RegExp; reason: string }[] = [
  {
    repo: 'EOP-OMB/federal-program-inventory',
    path: /^website\/_program\//,
    reason: 'an Assistance Listing (a program description, not a grant, contract or funder): programs are not imported',
  },
];

/** Why no importer takes a record: a known source we leave out, or a shape nothing recognises. */
export function unrecognisedReason(source: SourceRecord): string {
  const known = NOT_IMPORTED.find((s) => s.repo === source._source_repo && typeof source._source_path === 'string' && s.path.test(source._source_path));
  if (known) return known.reason;
  const fields = Object.keys(source).filter((key) => !key.startsWith('_source'));
  const listed = fields.length === 0 ? 'no fields' : `fields ${fields.slice(0, 6).join(', ')}${fields.length > 6 ? ', …' : ''}`;
  return `unknown format: no importer recognises a record with ${listed}`;
}

/**
 * The importer for a record: by its `../shared/data` provenance (`_source_repo` + `_source_path`)
 * when it has one, else by its fields. Null when nothing recognises it.
 */
export function sourceFormatOf(source: SourceRecord): SourceFormat | null {
  const repo = source._source_repo;
  const path = source._source_path;
  const candidates =
    typeof repo === 'string' && typeof path === 'string'
      ? SOURCE_FORMATS.filter((format) => format.provenance.some((p) => p.repo === repo && p.path.test(path)))
      : SOURCE_FORMATS;
  return candidates.find((format) => format.matches(source)) ?? null;
}
