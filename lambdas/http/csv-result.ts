import type { CsvExport } from '../core/use-cases/export-records';
import type { ApiEvent, ApiResult } from './api-gateway';
import { headerOf } from './headers';

/**
 * Whether the Accept header asks for CSV over JSON: text/csv with a higher quality than
 * application/json (absent, or only a wildcard, counts as not asked). format= in the query wins over it.
 */
export function acceptsCsv(event: ApiEvent): boolean {
  const accept = headerOf(event.headers, 'accept');
  if (!accept) return false;
  const quality = (type: string) => {
    for (const part of accept.split(',')) {
      const [media, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
      if (media !== type) continue;
      const q = params.find((p) => p.startsWith('q='));
      const value = q ? Number(q.slice(2)) : 1;
      return Number.isFinite(value) ? value : 0;
    }
    return 0;
  };
  return quality('text/csv') > quality('application/json');
}

/** The export as a download, with headers that say how much of the result it holds. */
export function csvResult(file: CsvExport, fileName: string, nextCursor?: string): ApiResult {
  return {
    statusCode: 200,
    headers: {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="${fileName}"`,
      'X-Total-Count': String(file.total),
      'X-Export-Rows': String(file.rows),
      'X-Export-Complete': String(file.complete),
      ...(file.nextOffset !== undefined ? { 'X-Export-Next-Offset': String(file.nextOffset) } : {}),
      ...(nextCursor ? { 'X-Export-Next-Cursor': nextCursor } : {}),
      ...(file.degradedReason ? { 'X-Export-Degraded': file.degradedReason } : {}),
    },
    body: file.body,
  };
}

/** A list answer depends on the Accept header (JSON or CSV): caches must key on it. */
export function withVaryAccept(result: ApiResult): ApiResult {
  return { ...result, headers: { ...result.headers, Vary: 'Accept' } };
}
