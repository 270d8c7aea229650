/**
 * Why a source record could not be imported. Mappers throw it; the ingest pipeline catches it,
 * counts the record as rejected and moves on, so one bad record never stops a run.
 */
export class RecordRejected extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'RecordRejected';
  }
}

export function reject(reason: string): never {
  throw new RecordRejected(reason);
}
