/**
 * The site's config.json: written beside index.html at deploy (lib/constructs/dashboard-upload.ts)
 * and made by the local server from its own issuer and base URL.
 */
export interface DashboardConfig {
  issuer: string;
  clientId: string;
  /** Where sign-out ends the provider's session when its discovery document names no end_session_endpoint (Cognito's managed login). */
  signInUrl: string;
  apiBaseUrl: string;
  accountApiBaseUrl: string;
}

const FIELDS = ['issuer', 'clientId', 'signInUrl', 'apiBaseUrl', 'accountApiBaseUrl'] as const;

/** The config, checked: every field a URL without a trailing slash; otherwise an error naming what is wrong. */
export function parseConfig(value: unknown): DashboardConfig {
  if (typeof value !== 'object' || value === null) throw new Error('config.json is not a JSON object');
  const record = value as Record<string, unknown>;
  const config = {} as Record<(typeof FIELDS)[number], string>;
  for (const field of FIELDS) {
    const raw = record[field];
    if (typeof raw !== 'string' || !URL.canParse(raw) || !/^https?:$/.test(new URL(raw).protocol)) {
      if (field === 'clientId' && typeof raw === 'string' && raw.length > 0) {
        config[field] = raw;
        continue;
      }
      throw new Error(`config.json has no valid ${field}`);
    }
    config[field] = raw.replace(/\/+$/, '');
  }
  return config;
}
