import type { SourceFormat } from '../mapped-record';
import { fboNotices } from './fbo-notices';
import { govConRadarNotices } from './govconradar-notices';
import { samCsvExport } from './sam-csv-export';
import { samNoticesCsv } from './sam-notices-csv';
import { samOpportunitiesV2 } from './sam-opportunities-v2';

/**
 * Contract-opportunity formats, in detection order. Each recognises its records by keys no other
 * format has (noticeId / NoticeId + Sol# / "Notice ID" / notice_id + notice_type / solnbr from
 * FedBizOpps), so the order only matters for hand-made records that mix them.
 */
export const CONTRACT_FORMATS: readonly SourceFormat[] = [samOpportunitiesV2, samCsvExport, samNoticesCsv, govConRadarNotices, fboNotices];
