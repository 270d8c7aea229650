import { apiRoute, jsonResult } from '../http/api-gateway';
import { buildOpenApiDocument } from '../http/openapi';

let document: Record<string, unknown> | undefined;

export const handler = apiRoute(async () => {
  document ??= buildOpenApiDocument();
  return jsonResult(200, document);
});
