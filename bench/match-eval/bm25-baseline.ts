import type { Grant } from '../../lambdas/core/records';
import { type EligibilityProfile, eligibilityViolations, staleReasons } from './violations';

/**
 * The independent baseline eval:match compares the matcher with in the same run: plain BM25
 * (k1 1.2, b 0.75) of the profile's mission, sector and focus keywords over the title, categories
 * and description of every grant the profile may apply for (violations.ts), with none of the
 * service's code. It returns the top `depth` ids, and never "no strong matches".
 */

const STOP = new Set(
  'a an and are as at be by for from has have in into is it its of on or that the their this to was were which will with about any can our we you your i me my who what how but if no not such then there these they'.split(
    ' ',
  ),
);

const words = (text: string) => (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((w) => w.length > 1 && !STOP.has(w));

export class Bm25Baseline {
  private readonly docs: { grant: Grant; tf: Map<string, number>; length: number }[];
  private readonly df = new Map<string, number>();
  private readonly averageLength: number;

  constructor(
    grants: Iterable<Grant>,
    private readonly today: string,
  ) {
    this.docs = [...grants]
      .filter((g) => eligibilityViolations(g, {}, today).length === 0 && staleReasons(g, today).length === 0)
      .map((grant) => {
        const tokens = words(`${grant.title} ${grant.categories.join(' ')} ${grant.description}`);
        const tf = new Map<string, number>();
        for (const token of tokens) tf.set(token, (tf.get(token) ?? 0) + 1);
        for (const token of tf.keys()) this.df.set(token, (this.df.get(token) ?? 0) + 1);
        return { grant, tf, length: tokens.length };
      });
    this.averageLength = this.docs.reduce((sum, d) => sum + d.length, 0) / Math.max(1, this.docs.length);
  }

  top(query: string, profile: EligibilityProfile, depth: number): string[] {
    const terms = [...new Set(words(query))];
    const n = this.docs.length;
    return this.docs
      .filter((d) => eligibilityViolations(d.grant, profile, this.today).length === 0)
      .map((d) => {
        let score = 0;
        for (const term of terms) {
          const f = d.tf.get(term);
          if (!f) continue;
          const df = this.df.get(term)!;
          score += (Math.log(1 + (n - df + 0.5) / (df + 0.5)) * (f * 2.2)) / (f + 1.2 * (0.25 + (0.75 * d.length) / this.averageLength));
        }
        return { id: d.grant.id, score };
      })
      .filter((d) => d.score > 0)
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
      .slice(0, depth)
      .map((d) => d.id);
  }
}
