import type { NoticeFacts } from './notice-fields';

/**
 * The description of a contract notice that has no text of its own, and what search reads back
 * from it. Kept apart from notice-fields.ts (which names NAICS industries from a large table) so
 * that the record indexer can read a description without bundling that table.
 */

const usd = (amount: number) => `$${amount.toLocaleString('en-US', { maximumFractionDigits: 2 })}`;

/** What a notice's codes stand for: its NAICS industry and its PSC group (null when unknown). */
export interface NoticeTopics {
  industry: string | null;
  productOrService: string | null;
}

/**
 * A short factual description built from a notice's own fields and the names of its codes, what
 * is bought first. The SAM.gov API and its mirrors carry only a link to the notice text; without
 * this, keyword search would find such notices by title alone. Every sentence restates a field of
 * the record, so nothing is invented.
 */
export function describeNotice(facts: NoticeFacts, topics: NoticeTopics): string {
  const sentences: string[] = [];
  if (facts.naics) sentences.push(topics.industry ? `Industry: ${topics.industry} (NAICS ${facts.naics}).` : `NAICS ${facts.naics}.`);
  if (facts.classificationCode) {
    const code = facts.classificationCode;
    sentences.push(topics.productOrService ? `Product or service: ${topics.productOrService} (PSC ${code}).` : `Product/service code ${code}.`);
  }
  const kind = facts.noticeType ? `${facts.noticeType} notice` : 'Contract notice';
  const number = facts.solicitationNumber ? ` ${facts.solicitationNumber}` : '';
  const from = facts.agencies.length > 0 ? ` from ${facts.agencies.join(', ')}` : '';
  sentences.push(`${kind}${number}${from}.`);
  if (facts.setAside) sentences.push(`Set-aside: ${facts.setAside}.`);
  if (facts.place) sentences.push(`Place of performance: ${facts.place}.`);
  const award = facts.award;
  if (award && (award.awardee || award.number || award.amount !== null)) {
    const parts = [
      award.number ? `Contract ${award.number}` : 'Contract',
      award.awardee ? ` awarded to ${award.awardee}` : ' awarded',
      award.date ? ` on ${award.date}` : '',
      award.amount !== null ? ` for ${usd(award.amount)}` : '',
    ];
    sentences.push(`${parts.join('')}.`);
  }
  return sentences.join(' ');
}

/** The sentences naming a composed description's codes, which open it. */
const CODE_SENTENCES = new RegExp(
  [
    '^(?:Industry: (?<industry>.+?) \\(NAICS \\d{6}\\)\\.|NAICS \\d{6}\\.)?',
    '(?: ?(?:Product or service: (?<productOrService>.+?) \\(PSC [^()\\s]+\\)\\.|Product/service code \\S+\\.))?',
  ].join(''),
);
/** What follows them in a composed description: nothing, or the notice sentence. */
const NOTICE_SENTENCE = /^(?:$| [^.]* notice\b)/;

/**
 * What a composed description says is bought (its topics, each null when it names none);
 * undefined for a notice's own text, which does not open with code sentences and a notice
 * sentence, and for a composed description that names no code.
 */
export function topicsOfComposedDescription(description: string): NoticeTopics | undefined {
  const match = CODE_SENTENCES.exec(description);
  if (!match || match[0] === '' || !NOTICE_SENTENCE.test(description.slice(match[0].length))) return undefined;
  return { industry: match.groups?.industry ?? null, productOrService: match.groups?.productOrService ?? null };
}
