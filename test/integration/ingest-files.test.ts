import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestFiles } from '../../lambdas/adapters/source-files/ingest-files';
import { recordIdOf } from '../../lambdas/core/ingest/identity';
import type { IngestRejection } from '../../lambdas/core/use-cases/ingest-records';
import type { Clock } from '../../lambdas/ports/clock';
import { runAdmin } from '../support/admin-cli';
import { startTestApi, type TestApi } from '../support/api-server';

/**
 * The original public formats end to end: fixture files (XML extracts, API responses, CSV
 * exports) through the readers, the importers and the store, read back over HTTP; then bad input,
 * which must be rejected record by record with a reason and never leave a partial record.
 */

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/ingest/${name}`, import.meta.url));
const fixedClock = (date: string): Clock => ({ now: () => new Date(`${date}T12:00:00Z`) });
const grantId = (number: string) => recordIdOf('grant', 'grants.gov', number);

async function ingestInto(api: TestApi, paths: string[]) {
  const rejections: IngestRejection[] = [];
  const { summary } = await ingestFiles(paths, api.stack.services, { onRejected: (r) => rejections.push(r) });
  return { summary, rejections };
}

describe('Grants.gov and simpler.grants.gov original formats', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ seed: false, clock: fixedClock('2026-05-01') });
  });
  afterAll(() => api?.close());

  it('reads the v2 XML extract: synopses and forecasts, HTML stripped, codes named', async () => {
    const { summary, rejections } = await ingestInto(api, [fixture('grants-gov-extract-v2.xml')]);
    expect(rejections).toEqual([]);
    expect(summary.byKind.grant.created).toBe(3);
    const { body } = await api.get(`/grants-api/${grantId('RFA-MH-26-110')}`);
    expect(body).toMatchObject({
      status: 'posted',
      deadline_date: '2026-10-15',
      amount_min: 0,
      amount_max: 450000,
      categories: ['Health', 'Science and Technology and other Research and Development'],
      requires_501c3: true,
      listing_url: 'https://www.grants.gov/search-results-detail/358123',
      created_at: '2026-02-12T00:00:00Z',
    });
    expect([...body.eligible_applicants].sort()).toEqual(['academic', 'nonprofit', 'tribal']);
    expect(body.description).toMatch(/^This Notice .*youth aged 10–24\.\n\nApplicants & partners should describe .* in real-world settings\.$/s);
    expect(body.description).not.toMatch(/<|&lt;|&amp;/);
    expect((await api.get(`/grants-api/${grantId('USDA-NIFA-AFRI-011870')}`)).body).toMatchObject({ status: 'forecasted', deadline_date: '2026-09-30' });
    expect((await api.get(`/grants-api/${grantId('DE-FOA-0003120')}`)).body).toMatchObject({ status: 'closed', amount_min: null, amount_max: null });
  });

  it('reads the old XMLExtract records', async () => {
    const { summary } = await ingestInto(api, [fixture('grants-gov-extract-v1.xml')]);
    expect(summary.byKind.grant.created).toBe(2);
    expect((await api.get(`/grants-api/${grantId('EPA-R5-GL2010-01')}`)).body).toMatchObject({
      deadline_date: '2010-06-18',
      amount_min: 25000,
      amount_max: 250000,
      categories: ['Environment', 'Natural Resources'],
      requires_501c3: false,
    });
  });

  it('reads search2 and fetchOpportunity responses and simpler.grants.gov JSON and CSV', async () => {
    const { summary, rejections } = await ingestInto(api, [
      fixture('grants-gov-search2.json'),
      fixture('grants-gov-fetch-opportunity.json'),
      fixture('simpler-grants-search.json'),
      fixture('simpler-grants-export.csv'),
    ]);
    expect(rejections).toEqual([]);
    expect(summary.byKind.grant.created).toBe(7);
    expect(Object.keys(summary.byFormat).sort()).toEqual(['grants-gov-fetch-opportunity', 'grants-gov-search2', 'simpler-grants']);
    expect((await api.get(`/grants-api/${grantId('HHS-2026-ACF-OCS-EE-0077')}`)).body).toMatchObject({
      title: 'Rural Community Development Program & Technical Assistance',
      status: 'posted',
      deadline_date: '2026-06-22',
      description: '',
    });
    expect((await api.get(`/grants-api/${grantId('DOJ-OVW-2026-17')}`)).body).toMatchObject({ amount_min: null, amount_max: 1000000, status: 'closed' });
    expect((await api.get(`/grants-api/${grantId('NSF-26-5117')}`)).body).toMatchObject({ amount_min: 100000, amount_max: 1200000, status: 'posted' });
    expect((await api.get(`/grants-api/${grantId('EPA-R5-GL2026-01')}`)).body).toMatchObject({ status: 'closed', amount_max: 750000 });
  });

  it('links records to one funder per agency, created on first use', async () => {
    const { body } = await api.get(`/grants-api/${grantId('HHS-2026-IHS-TSGP-0002')}`);
    const funder = await api.get(`/funders-api/${body.funder_id}`);
    expect(funder.body).toMatchObject({ name: body.funder_name, summary: null, website: null, source_id: null });
    const again = await ingestInto(api, [fixture('simpler-grants-export.csv')]);
    expect(again.summary.byKind).toEqual({
      grant: { created: 0, updated: 0, unchanged: 2 },
      contract: { created: 0, updated: 0, unchanged: 0 },
      funder: { created: 0, updated: 0, unchanged: 0 },
    });
  });
});

describe('SAM.gov, NSF and USAspending original formats', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ seed: false, clock: fixedClock('2026-08-15') });
  });
  afterAll(() => api?.close());

  it('reads a Get Opportunities v2 response: open, international and award notices', async () => {
    const { summary, rejections } = await ingestInto(api, [fixture('sam-opportunities-v2.json')]);
    expect(rejections).toEqual([]);
    expect(summary.byKind.contract.created).toBe(3);
    const open = await api.get(`/contracts-api/${recordIdOf('contract', 'sam.gov', 'a1b2c3d4e5f60718293a4b5c6d7e8f90')}`);
    expect(open.body).toMatchObject({
      status: 'open',
      deadline_date: '2026-09-15',
      states: ['MD'],
      naics: '541512',
      set_aside_code: 'SBA',
      primary_contact_email: 'jane.doe.civ@army.mil',
      categories: ['Information Technology'],
    });
    const abroad = await api.get(`/contracts-api/${recordIdOf('contract', 'sam.gov', '0f9e8d7c6b5a49382716f5e4d3c2b1a0')}`);
    expect(abroad.body).toMatchObject({ states: [], geography: 'International', status: 'closed' });
    const award = await api.get(`/contracts-api/${recordIdOf('contract', 'sam.gov', '5c4b3a29180716f5e4d3c2b1a0f9e8d7')}`);
    expect(award.body).toMatchObject({ opportunity_type: 'awarded', amount_min: 1250000, amount_max: 1250000, set_aside_code: '8A' });
  });

  it('reads the SAM.gov CSV export, multi-line quoted descriptions included', async () => {
    const { summary } = await ingestInto(api, [fixture('sam-contract-opportunities.csv')]);
    expect(summary.byKind.contract.created).toBe(3);
    const { body } = await api.get(`/contracts-api/${recordIdOf('contract', 'sam.gov', '7e1f2a3b4c5d6e7f8091a2b3c4d5e6f7')}`);
    expect(body).toMatchObject({ states: ['TX'], set_aside_code: 'SDVOSBC', created_at: '2026-08-05T14:22:10Z', naics: '561720' });
    expect(body.description.split('\n').length).toBeGreaterThanOrEqual(3);
    expect(body.description).toContain(',');
  });

  it('reads NSF award search CSV and USAspending spending_by_award as awarded projects', async () => {
    const { summary, rejections } = await ingestInto(api, [fixture('nsf-awards.csv'), fixture('usaspending-spending-by-award.json')]);
    expect(rejections).toEqual([]);
    expect(summary.byKind.grant.created).toBe(4);
    expect((await api.get(`/grants-api/${recordIdOf('grant', 'nsf', '2400123')}`)).body).toMatchObject({
      opportunity_type: 'awarded',
      amount_max: 1499876,
      project_end_date: '2029-08-31',
      states: ['FL'],
      categories: ['Science and Technology and other Research and Development', 'Education'],
    });
    const awarded = await api.get('/grants-api?opportunity_type=awarded&count_only=true');
    expect(awarded.body.pagination.total).toBe(4);
  });
});

describe('bad input', () => {
  let api: TestApi;
  let dir: string;
  beforeAll(async () => {
    api = await startTestApi({ seed: false, clock: fixedClock('2026-05-01') });
    dir = mkdtempSync(join(tmpdir(), 'gcf-bad-input-'));
  });
  afterAll(async () => {
    await api?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const hit = (fields: Record<string, unknown>) =>
    JSON.stringify({
      id: '900001',
      number: 'BAD-0001',
      title: 'A grant',
      agency: 'Department of Energy',
      openDate: '01/05/2026',
      closeDate: '09/30/2026',
      ...fields,
    });
  const grantCount = async () => (await api.get('/grants-api?opportunity_type=all&status=posted,closed,forecasted&count_only=true')).body.pagination.total;

  it('a malformed XML document keeps the records before the fault and rejects the rest with its line', async () => {
    const { summary, rejections } = await ingestInto(api, [fixture('malformed.xml')]);
    expect(summary.byKind.grant.created).toBe(1);
    expect(rejections).toHaveLength(1);
    expect(rejections[0]!.location).toMatch(/^malformed\.xml:\d+$/);
    expect(rejections[0]!.reason).toMatch(/^malformed XML: .*the rest of the file was not read$/);
    expect((await api.get(`/grants-api/${grantId('USDA-FS-2026-CWDG')}`)).status).toBe(200);
  });

  it('malformed JSON lines are rejected one by one and the file reads on', async () => {
    const { summary, rejections } = await ingestInto(api, [fixture('malformed-lines.jsonl')]);
    expect(summary.byKind.grant.created).toBe(1);
    expect(rejections.map((r) => [r.location, r.reason.split(':')[0]])).toEqual([
      ['malformed-lines.jsonl:2', 'malformed JSON line'],
      ['malformed-lines.jsonl:3', 'not a JSON object (found an array)'],
    ]);
  });

  it('missing fields, impossible dates, negative amounts and unknown shapes are rejected with reasons, nothing half-written', async () => {
    const before = await grantCount();
    const file = join(dir, 'bad-records.jsonl');
    writeFileSync(
      file,
      [
        hit({ number: 'GOOD-0001' }),
        hit({ number: 'BAD-NO-TITLE', title: '' }),
        hit({ number: 'BAD-DATE', closeDate: '02/30/2026' }),
        hit({ number: 'BAD-DATE-2', openDate: '2026-13-01' }),
        hit({ number: '' }),
        JSON.stringify({
          _id: 'grants.gov:x1',
          data_source: 'grants.gov',
          solnbr: 'BAD-AMOUNT',
          title: 'Negative',
          agency: 'Department of Energy',
          posted_dt: '2014-01-02T00:00:00Z',
          ext: { AwardCeiling: '-5' },
        }),
        JSON.stringify({ colour: 'blue', size: 3 }),
      ].join('\n'),
    );
    const { summary, rejections } = await ingestInto(api, [file]);
    expect(summary.byKind.grant.created).toBe(1);
    expect(rejections.map((r) => r.location)).toEqual([2, 3, 4, 5, 6, 7].map((line) => `bad-records.jsonl:${line}`));
    const reasons = rejections.map((r) => r.reason);
    expect(reasons[0]).toMatch(/title/);
    expect(reasons[1]).toMatch(/"02\/30\/2026" is an impossible date/);
    expect(reasons[2]).toMatch(/"2026-13-01" is an impossible date/);
    expect(reasons[3]).toMatch(/number/i);
    expect(reasons[4]).toMatch(/negative amount -5/);
    expect(reasons[5]).toBe('unknown format: no importer recognises a record with fields colour, size');
    expect(await grantCount()).toBe(before + 1);
    for (const number of ['BAD-NO-TITLE', 'BAD-DATE', 'BAD-DATE-2', 'BAD-AMOUNT']) {
      expect((await api.get(`/grants-api/${grantId(number)}`)).status, number).toBe(404);
    }
  });

  it('a record too large to store is rejected with its size, and the rest of its batch is written', async () => {
    const file = join(dir, 'huge.jsonl');
    const huge = JSON.stringify({
      _id: 'grants.gov:h1',
      data_source: 'grants.gov',
      solnbr: 'HUGE-1',
      title: 'Huge',
      agency: 'Department of Energy',
      posted_dt: '2014-01-02T00:00:00Z',
      description: 'word '.repeat(80_000),
    });
    writeFileSync(file, [huge, hit({ number: 'AFTER-HUGE' })].join('\n'));
    const { summary, rejections } = await ingestInto(api, [file]);
    expect(rejections.map((r) => r.reason)).toEqual([expect.stringMatching(/^record too large: \d+ bytes as JSON \(at most 350000\)$/)]);
    expect(summary.byKind.grant.created).toBe(1);
    expect((await api.get(`/grants-api/${grantId('AFTER-HUGE')}`)).status).toBe(200);
  });

  it('a malformed CSV row is rejected alone, and so is a quote left open at the end of the file', async () => {
    const file = join(dir, 'notices.csv');
    writeFileSync(
      file,
      [
        'notice_id,solicitation_number,title,notice_type,posted_date,response_deadline,archive_date,agency,subagency,office,naics,psc,set_aside,set_aside_code,place_of_performance_state,source_url',
        'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa01,S-1,Good notice,Solicitation,2026-04-01,2026-06-01,2026-07-01,DEPT OF DEFENSE,DEPT OF THE ARMY,W6QK,541330,R425,,,MD,https://sam.gov/opp/1/view',
        'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa02,S-2,Too few columns',
        'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa03,S-3,"Unclosed quote,Solicitation,2026-04-01',
      ].join('\n'),
    );
    const { summary, rejections } = await ingestInto(api, [file]);
    expect(summary.byKind.contract.created).toBe(1);
    expect(rejections.map((r) => r.reason)).toEqual([
      expect.stringMatching(/^malformed CSV row: .*column/i),
      expect.stringMatching(/^malformed CSV row: Quote Not Closed/),
    ]);
  });

  it('a JSON document that does not parse is rejected as a whole, with the reason', async () => {
    const file = join(dir, 'response.json');
    writeFileSync(file, '{"opportunitiesData": [{"noticeId": "x"');
    const { rejections } = await ingestInto(api, [file]);
    expect(rejections).toEqual([
      { location: 'response.json', format: null, reason: expect.stringMatching(/^malformed JSON: .*no record of the file was read$/) },
    ]);
  });
});

describe('admin ingest (the CLI)', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'gcf-admin-ingest-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const admin = (...args: string[]) => runAdmin(args);

  const adminWith = (env: Record<string, string>, ...args: string[]) => runAdmin(args, env);

  it('imports files and folders into the local state and prints the summary', async () => {
    const out = await admin('ingest', fixture('sam-opportunities-v2.json'), fixture('malformed-lines.jsonl'), '--data-dir', dataDir);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^contract\s+3\s+0\s+0$/m);
    expect(out.stdout).toMatch(/^grant\s+1\s+0\s+0$/m);
    expect(out.stdout).toMatch(/^rejected\s+2$/m);
    expect(out.stdout).toContain('rejected malformed-lines.jsonl:2');
    const stats = await admin('local', 'stats', '--data-dir', dataDir);
    expect(stats.stdout).toMatch(/^contract\s+3$/m);
    expect(stats.stdout).toMatch(/contract\.created 3/);
  });

  it('--strict exits 3 when a record is rejected, still importing the rest; without rejections it exits 0', async () => {
    const strictDir = mkdtempSync(join(tmpdir(), 'gcf-admin-strict-'));
    try {
      const rejected = await admin(
        'ingest',
        fixture('sam-opportunities-v2.json'),
        fixture('malformed-lines.jsonl'),
        '--data-dir',
        strictDir,
        '--strict',
        '--rejections',
        join(strictDir, 'r.tsv'),
      );
      expect(rejected.code).toBe(3);
      expect(rejected.stderr).toMatch(/^admin: --strict: 2 records were rejected \(the rest were imported\)$/m);
      expect(rejected.stdout).toMatch(/^contract\s+3\s+0\s+0$/m);
      const clean = await admin('ingest', fixture('nsf-awards.csv'), '--data-dir', strictDir, '--strict');
      expect(clean.code).toBe(0);
    } finally {
      rmSync(strictDir, { recursive: true, force: true });
    }
  });

  it('writes every rejection to a file on request', async () => {
    const file = join(dataDir, 'rejections.tsv');
    const out = await admin('ingest', fixture('malformed-lines.jsonl'), '--data-dir', dataDir, '--rejections', file);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^grant\s+0\s+0\s+1$/m);
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('a missing file, a folder without sources or a path through a file ends with a clear message and exit 1', async () => {
    const emptyDir = mkdtempSync(join(tmpdir(), 'gcf-empty-'));
    try {
      for (const [path, message] of [
        [join(dataDir, 'nope.jsonl'), /nope\.jsonl: no such file or folder/],
        [emptyDir, /no \.xml, \.csv, \.json or \.jsonl files in this folder/],
        [join(fixture('nsf-awards.csv'), 'inside'), /cannot read \(ENOTDIR\)/],
      ] as const) {
        const out = await admin('ingest', path, '--data-dir', dataDir);
        expect(out.code, path).toBe(1);
        expect(out.stderr, path).toMatch(message);
      }
    } finally {
      rmSync(emptyDir, { recursive: true, force: true });
    }
  });

  it('an unknown --format, --target or command is a usage error (exit 2), refused before anything is read', async () => {
    const format = await admin('ingest', fixture('nsf-awards.csv'), '--format', 'grants-gov-pdf', '--data-dir', dataDir);
    expect(format.code).toBe(2);
    expect(format.stderr).toMatch(/unknown format; use auto or one of: .*grants-gov-xml/);
    const target = await admin('ingest', fixture('nsf-awards.csv'), '--target', 'gcp', '--data-dir', dataDir);
    expect(target.code).toBe(2);
    expect(target.stderr).toMatch(/Allowed choices are local, aws/);
    const command = await admin('ingets', fixture('nsf-awards.csv'));
    expect(command.code).toBe(2);
    expect(command.stderr).toMatch(/unknown command 'ingets'/);
  });

  it('--target aws names the stage it could not find, and exits 1 before reading anything', async () => {
    // Fake credentials and a closed local port for CloudFormation: this never reaches AWS.
    const offline = {
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_REGION: 'us-east-1',
      AWS_PROFILE: '',
      AWS_ENDPOINT_URL_CLOUDFORMATION: 'http://127.0.0.1:9',
      AWS_MAX_ATTEMPTS: '1',
    };
    const out = await adminWith(offline, 'ingest', fixture('nsf-awards.csv'), '--target', 'aws', '--stage', 'qa');
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/^admin: cannot find the records table of stage "qa" \(.+\); pass --table-name to skip the lookup$/m);
  });

  it('a forced format that does not fit rejects each record with the reason', async () => {
    const out = await admin('ingest', fixture('nsf-awards.csv'), '--format', 'sam-opportunities-v2', '--data-dir', dataDir);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^rejected\s+2$/m);
    expect(out.stdout).toMatch(/\(sam-opportunities-v2\): missing required field/);
  });
});
