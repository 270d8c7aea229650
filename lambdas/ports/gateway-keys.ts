/**
 * API Gateway keys made per customer key by earlier versions, which the migration deletes
 * (`admin keys migrate-gateway-keys`).
 */
export interface LegacyGatewayKeys {
  /** Deletes the gateway key; 'absent' when it was deleted already (a resumed migration). */
  delete(apiKeyId: string): Promise<'deleted' | 'absent'>;
}
