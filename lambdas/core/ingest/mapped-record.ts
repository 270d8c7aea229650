import type { Contract, Funder, Grant } from '../records';

/**
 * What a mapper makes of one source record: our record minus what only the pipeline can fill in
 * (the id, from source + source_id; the funder link, from the funder directory; and created_at
 * when the source has no publication date).
 */

/** An agency as a source names it; the pipeline resolves it to a funder record, creating one when unknown. */
export interface FunderReference {
  /**
   * Names the source gives, most specific first (sub-agency before department). The first that
   * matches a known funder wins; when none does, a funder is created under the first name.
   */
  readonly names: readonly string[];
}

/** `created_at: null` means the source has no publication date: the pipeline uses the time of first import. */
type Unlinked<T> = Omit<T, 'id' | 'funder_id' | 'funder_name' | 'created_at'> & {
  created_at: string | null;
  /** Required for ingested records: the id is a UUID v5 of source + source_id. */
  source_id: string;
};

export type GrantDraft = Unlinked<Grant>;
export type ContractDraft = Unlinked<Contract>;
export type FunderDraft = Omit<Funder, 'id' | 'created_at'> & { created_at: string | null; source_id: string };

export type MappedRecord =
  | { readonly kind: 'grant'; readonly record: GrantDraft; readonly funder: FunderReference }
  | { readonly kind: 'contract'; readonly record: ContractDraft; readonly funder: FunderReference }
  | { readonly kind: 'funder'; readonly record: FunderDraft };

/** One source record as read from a file: the source's own field names and values. */
export type SourceRecord = Readonly<Record<string, unknown>>;

export interface MappingContext {
  /** UTC date of the import (YYYY-MM-DD): a posted opportunity whose deadline is before it is closed. */
  readonly today: string;
}

/** Turns one source record into one of ours, or throws RecordRejected with the reason. */
export type Mapper = (source: SourceRecord, context: MappingContext) => MappedRecord;

/** One public source format: how to recognise its records and how to map them. */
export interface SourceFormat {
  /** Stable name, used by `admin ingest --format` and in summaries, e.g. `grants-gov-xml`. */
  readonly id: string;
  readonly description: string;
  /**
   * Recognises a record of this format by its fields, for files without provenance. Checked in
   * registry order, so it should test the fields that set this format apart from its neighbours.
   */
  readonly matches: (source: SourceRecord) => boolean;
  /** The `../shared/data` sources (`_source_repo` + `_source_path`) whose lines are in this format. */
  readonly provenance: readonly { readonly repo: string; readonly path: RegExp }[];
  readonly map: Mapper;
}
