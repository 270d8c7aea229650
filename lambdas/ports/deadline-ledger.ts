/**
 * Which deadline reminders were already sent: one marker per subscription, record and deadline,
 * so a daily scan emits each once, and a changed deadline (a new marker) may emit again.
 */
export interface DeadlineLedger {
  has(marker: string): Promise<boolean>;
  /** Records the marker; false when it was already there (the reminder went out before). */
  claim(marker: string, expiresAt: Date): Promise<boolean>;
}
