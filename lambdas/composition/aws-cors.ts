import { CORS_ORIGINS_ENV, parseCorsOrigins } from '../http/cors';

/**
 * The stage's allowed CORS origins, as the CDK sets them on every API function (a JSON array in
 * CORS_ALLOWED_ORIGINS, from lib/config.ts `api.corsOrigins`); unset means any origin. Read once
 * per cold start; a malformed value fails the start instead of answering without CORS.
 */
export const awsCorsOrigins = parseCorsOrigins(process.env[CORS_ORIGINS_ENV], `the ${CORS_ORIGINS_ENV} environment variable`);
