import { writeFileSync } from 'node:fs';

/**
 * A generated import file in a format the importer takes (simpler.grants.gov API records, one per
 * JSON line), so the reliability tests run in a fresh clone without ../shared/data. Every value is
 * a function of the line number: two files of the same size are byte for byte the same, and every
 * record's id, dates and text are fixed (created_at is the post date; deadlines are far ahead, so
 * no status depends on the day the test runs).
 */

const AGENCIES = [
  ['NSF', 'U.S. National Science Foundation'],
  ['HUD', 'Department of Housing and Urban Development'],
  ['DOE', 'Department of Energy'],
  ['EPA', 'Environmental Protection Agency'],
  ['USDA', 'Department of Agriculture'],
] as const;

const WORDS = (
  'research community health energy water rural education housing climate science technology training youth ' +
  'infrastructure safety transportation agriculture innovation data network wildlife coastal broadband literacy'
).split(' ');

export interface GrantsFixture {
  path: string;
  grants: number;
  /** One funder per agency, created from the agency names (no funder file is imported). */
  funders: number;
}

export function writeGrantsFixture(path: string, grants: number): GrantsFixture {
  const lines: string[] = [];
  for (let i = 0; i < grants; i++) {
    const [code, name] = AGENCIES[i % AGENCIES.length]!;
    const words = (count: number, salt: number) => Array.from({ length: count }, (_, j) => WORDS[(i * 7 + j * 13 + salt) % WORDS.length]).join(' ');
    lines.push(
      JSON.stringify({
        opportunity_id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        opportunity_number: `REL-${code}-${String(i).padStart(6, '0')}`,
        opportunity_title: `Reliability ${words(4, 1)} program ${i}`,
        agency_code: code,
        agency_name: name,
        top_level_agency_name: name,
        opportunity_status: i % 10 === 0 ? 'forecasted' : 'posted',
        summary: {
          summary_description: `<p>${words(40, 3)} &amp; ${words(20, 5)}.</p>`,
          post_date: `2025-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`,
          close_date: `2099-${String(1 + (i % 12)).padStart(2, '0')}-15`,
          award_floor: 1000 * (i % 50),
          award_ceiling: 100_000 + i,
          applicant_types: ['nonprofits_non_higher_education_with_501c3'],
          funding_categories: ['science_technology_and_other_research_and_development'],
        },
      }),
    );
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
  return { path, grants, funders: AGENCIES.length };
}
