import type { SourceFormat } from '../mapped-record';
import { nsfAwardsCsv } from './nsf-awards-csv';
import { usaspendingAssistanceAwards } from './usaspending-assistance-awards';
import { usaspendingContractAwards } from './usaspending-contract-awards';

/**
 * Awarded-project formats, in detection order: NSF exports (AwardNumber), USAspending contract
 * awards (award_id + piid) and USAspending assistance awards ("Award ID" + CFDA Number). NSF awards
 * and assistance awards become awarded grants; contract awards become awarded contracts.
 */
export const AWARD_FORMATS: readonly SourceFormat[] = [nsfAwardsCsv, usaspendingContractAwards, usaspendingAssistanceAwards];
