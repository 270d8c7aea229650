import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containerOf, readSourceFile } from '../../lambdas/adapters/source-files/read-source-files';
import { agencyDisplayName, agencyKeyOf } from '../../lambdas/core/ingest/agency-names';
import { FunderDirectory } from '../../lambdas/core/ingest/funder-directory';
import { agencyFunderIdOf, contentHashOf, recordIdOf } from '../../lambdas/core/ingest/identity';
import { RecordRejected } from '../../lambdas/core/ingest/rejection';
import { parseAmount, parseDate, parseDateTime, plainText, textOf, titleOf, urlOf } from '../../lambdas/core/ingest/source-values';
import type { Funder } from '../../lambdas/core/records';
import type { SourceItem } from '../../lambdas/core/use-cases/ingest-records';

const rejectionOf = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    if (error instanceof RecordRejected) return error.reason;
    throw error;
  }
  throw new Error('expected a rejection');
};

describe('source values', () => {
  it('reads the four date formats, keeping the calendar date an ISO timestamp was written in', () => {
    expect(parseDate('2026-08-19', 'd')).toBe('2026-08-19');
    expect(parseDate('08/19/2026', 'd')).toBe('2026-08-19');
    expect(parseDate('8/9/2026', 'd')).toBe('2026-08-09');
    expect(parseDate('08192026', 'd')).toBe('2026-08-19');
    expect(parseDate('2026-08-19T23:30:00-05:00', 'd')).toBe('2026-08-19');
    expect(parseDate('2024-02-29', 'd')).toBe('2024-02-29');
    expect(parseDate('', 'd')).toBeNull();
    expect(parseDate('Not Available', 'd')).toBeNull();
  });

  it('rejects impossible and unreadable dates, naming the field', () => {
    expect(rejectionOf(() => parseDate('02/30/2024', 'CloseDate'))).toBe('CloseDate: "02/30/2024" is an impossible date');
    expect(rejectionOf(() => parseDate('2023-02-29', 'd'))).toBe('d: "2023-02-29" is an impossible date');
    expect(rejectionOf(() => parseDate('13012026', 'd'))).toBe('d: "13012026" is an impossible date');
    expect(rejectionOf(() => parseDate('next Tuesday', 'd'))).toMatch(/^d: "next Tuesday" is not a date/);
  });

  it('turns timestamps into UTC instants', () => {
    expect(parseDateTime('2026-08-19', 'd')).toBe('2026-08-19T00:00:00Z');
    expect(parseDateTime('2026-08-19T10:00:00-05:00', 'd')).toBe('2026-08-19T15:00:00Z');
    expect(parseDateTime('1996-07-30T04:00:00.000+00:00', 'd')).toBe('1996-07-30T04:00:00Z');
    expect(parseDateTime('2026-08-05 14:22:10', 'd')).toBe('2026-08-05T14:22:10Z');
  });

  it('reads amounts as feeds write them and rejects negative ones', () => {
    expect(parseAmount('$1,200.50', 'a')).toBe(1200.5);
    expect(parseAmount(530000, 'a')).toBe(530000);
    expect(parseAmount('Not Available', 'a')).toBeNull();
    expect(rejectionOf(() => parseAmount('-58160.67', 'Award Amount'))).toBe('Award Amount: negative amount -58160.67');
    expect(rejectionOf(() => parseAmount('about 5k', 'a'))).toBe('a: "about 5k" is not an amount');
  });

  it('strips markup, decodes entities after stripping, and tidies whitespace', () => {
    expect(plainText('<p>Grants for <b>rural</b> clinics &amp; schools.</p><p>Apply&nbsp;now.</p>')).toBe('Grants for rural clinics & schools.\n\nApply now.');
    expect(plainText('Line one<br/>Line two\r\n\r\n\r\nLine three')).toBe('Line one\nLine two\n\nLine three');
    expect(plainText('Use &lt;b&gt; for bold')).toBe('Use <b> for bold');
    expect(plainText('<script>alert(1)</script>Safe')).toBe('Safe');
    expect(plainText('un<b>usual</b> <a href="x">link</a><td>cell</td><td>cell</td>')).toBe('unusual link cell cell');
  });

  it('unwraps Excel-protected cells and treats placeholders as empty', () => {
    expect(textOf('="0123"')).toBe('0123');
    expect(textOf(' N/A ')).toBeNull();
    expect(textOf(['first', 'second'])).toBe('first');
  });

  it('keeps only http(s) URLs and cuts long titles at a word', () => {
    expect(urlOf('www.usip.org')).toBe('https://www.usip.org/');
    expect(urlOf('javascript:alert(1)')).toBeNull();
    expect(urlOf('see the agency website')).toBeNull();
    const title = titleOf('word '.repeat(100), 40)!;
    expect(title.length).toBeLessThanOrEqual(40);
    expect(title.endsWith('word…')).toBe(true);
  });
});

describe('agency names', () => {
  it('compare equal however a feed writes them', () => {
    const key = agencyKeyOf('Department of the Interior');
    for (const name of ['INTERIOR, DEPARTMENT OF THE', 'DEPT OF THE INTERIOR', 'U.S. Department of the Interior', 'department  of interior']) {
      expect(agencyKeyOf(name), name).toBe(key);
    }
    expect(agencyKeyOf('DEFENSE INFORMATION SYSTEMS AGENCY (DISA)')).toBe(agencyKeyOf('Defense Information Systems Agency'));
    expect(agencyKeyOf('Department of Energy')).not.toBe(agencyKeyOf('Department of the Interior'));
  });

  it('read naturally when written in capitals', () => {
    expect(agencyDisplayName('DEPT OF THE ARMY')).toBe('Department of the Army');
    expect(agencyDisplayName('HEALTH AND HUMAN SERVICES, DEPARTMENT OF')).toBe('Department of Health and Human Services');
    expect(agencyDisplayName('DEFENSE THREAT REDUCTION AGENCY (DTRA)')).toBe('Defense Threat Reduction Agency (DTRA)');
    expect(agencyDisplayName('Office of Surface Mining')).toBe('Office of Surface Mining');
  });
});

describe('identity', () => {
  it('derives one id per kind, source and source id', () => {
    const id = recordIdOf('grant', 'grants.gov', 'PA-24-155');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(recordIdOf('grant', 'grants.gov', 'PA-24-155')).toBe(id);
    expect(recordIdOf('contract', 'grants.gov', 'PA-24-155')).not.toBe(id);
    expect(recordIdOf('grant', 'nsf', 'PA-24-155')).not.toBe(id);
  });

  it('hashes the same content the same way whatever the key order, and any change differently', () => {
    const a = { id: 'x', title: 'T', categories: ['A', 'B'], amount_max: null };
    expect(contentHashOf({ amount_max: null, categories: ['A', 'B'], title: 'T', id: 'x' })).toBe(contentHashOf(a));
    expect(contentHashOf({ ...a, categories: ['B', 'A'] })).not.toBe(contentHashOf(a));
    expect(contentHashOf({ ...a, amount_max: 0 })).not.toBe(contentHashOf(a));
  });
});

describe('funder directory', () => {
  const described = (id: string, name: string, summary: string | null = 'Mission.'): Funder => ({
    id,
    name,
    website: null,
    summary,
    created_at: '2020-01-01T00:00:00Z',
    source: 'sam.gov',
    source_id: id,
  });
  const now = { source: 'sam.gov', createdAt: '2026-11-22T00:00:00Z' };

  it('links to the first named agency a funder file described', () => {
    const dod = described('dod', 'DEPT OF DEFENSE');
    const directory = new FunderDirectory([dod]);
    expect(directory.resolve({ names: ['DEFENSE INFORMATION SYSTEMS AGENCY (DISA)', 'Department of Defense'] }, now)).toEqual({ funder: dod, created: false });
  });

  it('otherwise creates one funder for the most specific agency, whatever order records come in', () => {
    const orders = [
      [['Defense Information Systems Agency', 'Department of Defense'], ['DEPT OF DEFENSE']],
      [['DEPT OF DEFENSE'], ['Defense Information Systems Agency', 'Department of Defense']],
    ];
    const links = orders.map((references) => {
      const directory = new FunderDirectory();
      return references
        .map((names) => {
          const { funder, created } = directory.resolve({ names }, now)!;
          if (created) directory.add(funder);
          return funder.name;
        })
        .sort();
    });
    expect(links[0]).toEqual(['Defense Information Systems Agency', 'Department of Defense']);
    expect(links[1]).toEqual(links[0]);
    const created = new FunderDirectory().resolve({ names: ['Defense Information Systems Agency'] }, now)!;
    expect(created.funder).toMatchObject({ id: agencyFunderIdOf('defense information systems agency'), summary: null, source_id: null });
  });

  it('picks between funders sharing a name by content, not arrival order', () => {
    const bare = described('300000160', 'INTERIOR, DEPARTMENT OF THE', null);
    const full = described('100010393', 'Department of the Interior');
    for (const funders of [
      [bare, full],
      [full, bare],
    ]) {
      expect(new FunderDirectory(funders).resolve({ names: ['Department of the Interior'] }, now)!.funder.id).toBe('100010393');
    }
  });

  it('has nothing to link a record that names no agency to', () => {
    expect(new FunderDirectory().resolve({ names: ['  '] }, now)).toBeNull();
  });
});

describe('source file readers', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gcf-readers-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function read(name: string, content: string): Promise<SourceItem[]> {
    const path = join(dir, name);
    writeFileSync(path, content);
    const items: SourceItem[] = [];
    for await (const item of readSourceFile(path)) items.push(item);
    return items;
  }

  it('XML: children of the root are records; repeats become lists, nesting objects, entities text', async () => {
    const items = await read(
      'extract.xml',
      `<?xml version="1.0"?>
<Grants xmlns="http://apply.grants.gov/system/OpportunityDetail-V1.0">
  <OpportunitySynopsisDetail_1_0>
    <OpportunityNumber>A-1</OpportunityNumber>
    <CategoryOfFundingActivity>HL</CategoryOfFundingActivity>
    <CategoryOfFundingActivity>ED</CategoryOfFundingActivity>
    <Description><![CDATA[<p>Fish & chips</p>]]> &amp; more</Description>
    <Contact><Email>a@b.gov</Email></Contact>
  </OpportunitySynopsisDetail_1_0>
</Grants>`,
    );
    expect(items).toEqual([
      {
        location: 'extract.xml:3',
        record: {
          _record_type: 'OpportunitySynopsisDetail_1_0',
          OpportunityNumber: 'A-1',
          CategoryOfFundingActivity: ['HL', 'ED'],
          Description: '<p>Fish & chips</p> & more',
          Contact: { Email: 'a@b.gov' },
        },
      },
    ]);
  });

  it('CSV: the header names fields, a byte-order mark and quoted line breaks are handled', async () => {
    const items = await read('export.csv', '\uFEFFNoticeId,Description\nabc,"one, two\nthree"\ndef,plain\n');
    expect(items).toEqual([
      { location: 'export.csv:3', record: { NoticeId: 'abc', Description: 'one, two\nthree' } },
      { location: 'export.csv:4', record: { NoticeId: 'def', Description: 'plain' } },
    ]);
  });

  it('JSON: API envelopes are unwrapped to their records', async () => {
    expect((await read('sam.json', '{"totalRecords":2,"opportunitiesData":[{"noticeId":"a"},{"noticeId":"b"}]}')).map((i) => i.record)).toEqual([
      { noticeId: 'a' },
      { noticeId: 'b' },
    ]);
    expect((await read('search2.json', '{"errorcode":0,"data":{"hitCount":1,"oppHits":[{"number":"X"}]}}')).map((i) => i.record)).toEqual([{ number: 'X' }]);
    expect((await read('fetch.json', '{"errorcode":0,"data":{"id":1,"opportunityNumber":"Y"}}')).map((i) => i.record)).toEqual([
      { id: 1, opportunityNumber: 'Y' },
    ]);
    expect((await read('es.json', '{"hits":{"hits":[{"_id":"z","_source":{"title":"T"}}]}}')).map((i) => i.record)).toEqual([{ _id: 'z', title: 'T' }]);
    expect(await read('plain.json', '[{"a":1},2]')).toEqual([
      { location: 'plain.json#0', record: { a: 1 } },
      { location: 'plain.json#1', error: 'not a JSON object' },
    ]);
  });

  it('tells JSON lines from a JSON document without an extension by the first line', async () => {
    writeFileSync(join(dir, 'lines'), '{"a":1}\n{"a":2}\n');
    writeFileSync(join(dir, 'document'), '{\n  "results": []\n}\n');
    writeFileSync(join(dir, 'markup'), '  <Grants/>');
    expect(containerOf(join(dir, 'lines'))).toBe('jsonl');
    expect(containerOf(join(dir, 'document'))).toBe('json');
    expect(containerOf(join(dir, 'markup'))).toBe('xml');
  });
});
