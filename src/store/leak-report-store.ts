/** The secret scanning reports already processed, by fingerprint (a hash of the token and the URL). */
export interface LeakReportStore {
  /** The label a report was answered with, if it was processed at `since` or later. */
  processedLabel(fingerprint: string, since: number): Promise<string | undefined>;
  /** Records a processed report (a repeat of a fingerprint keeps the first). */
  recordProcessed(fingerprint: string, label: string, at: number): Promise<void>;
  /** Deletes the reports processed before `before`; returns how many. */
  sweep(before: number): Promise<number>;
}
