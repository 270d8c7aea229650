import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IngestFilesResult, ingestFiles } from '../../lambdas/adapters/source-files/ingest-files';
import type { ChangeEvent } from '../../lambdas/core/change-feed';
import { recordIdOf } from '../../lambdas/core/ingest/identity';
import { RESOURCE_KINDS } from '../../lambdas/core/records';
import type { IngestRejection } from '../../lambdas/core/use-cases/ingest-records';
import { loadLocalEmbedder, WINK } from '../../local/local-embedder';
import { startTestApi, type TestApi } from '../support/api-server';
import { hasSharedData, SHARED_DATA_FILES, SHARED_DATA_SKIP_MESSAGE, sharedDataLine, sharedDataLineCount, sharedDataPath } from '../support/shared-data';

if (!hasSharedData) console.warn(SHARED_DATA_SKIP_MESSAGE);

/**
 * Every record of the real public data (../shared/data) through `ingest` into the embedded stack,
 * then read back over HTTP: counts, rejections and their reasons, named records field by field,
 * search, funder links, the change events, and idempotent re-import.
 */
describe.skipIf(!hasSharedData)('ingest of ../shared/data', () => {
  let api: TestApi;
  let first: IngestFilesResult;
  const rejections: IngestRejection[] = [];
  const files = SHARED_DATA_FILES.map(sharedDataPath);

  async function events(): Promise<ChangeEvent[]> {
    const all: ChangeEvent[] = [];
    for await (const page of api.stack.outbox.scan()) all.push(...page);
    return all;
  }

  beforeAll(async () => {
    // This suite checks the mapping of 21,000 records, not their vectors: the word-vector fallback
    // embeds them in seconds, the sentence transformer would take some 20 minutes.
    api = await startTestApi({ seed: false, embedder: await loadLocalEmbedder({ name: WINK }) });
    first = await ingestFiles(files, api.stack.services, { onRejected: (r) => rejections.push(r) });
  });
  afterAll(() => api?.close());

  it('reads every line of every file and imports or rejects each one', () => {
    const lines = SHARED_DATA_FILES.reduce((sum, file) => sum + sharedDataLineCount(file), 0);
    const { summary } = first;
    expect(summary.read).toBe(lines);
    const imported = Object.values(summary.byFormat).reduce((sum, counts) => sum + counts.imported, 0);
    expect(imported + summary.rejected).toBe(lines);
    expect(rejections).toHaveLength(summary.rejected);
    expect(rejections.every((r) => r.reason.length > 10 && r.format !== null)).toBe(true);
  });

  it('rejects rarely, and only for the documented reasons', () => {
    expect(first.summary.rejected / first.summary.read).toBeLessThan(0.025);
    const documented = [
      /^Award Type "(DIRECT PAYMENT WITH UNRESTRICTED USE|INSURANCE)/, // USAspending: no funded project
      /^Award Amount: negative amount/, // USAspending de-obligations
      /^Grants\.gov test opportunity/, // "IV&V Test Agency" postings
      /does not say which agency it is/, // "Headquarters", "Region 4": no agency to link
      /^missing required field title/, // one FedBizOpps notice without a title
    ];
    const undocumented = rejections.filter((r) => !documented.some((pattern) => pattern.test(r.reason)));
    expect(undocumented).toEqual([]);
  });

  it('creates a record per imported source record, and funders for agencies no funder file describes', async () => {
    const { summary } = first;
    const created = summary.byKind.grant.created + summary.byKind.contract.created;
    // Two pairs of lines are the same record under two feeds; the second of each is unchanged.
    expect(created + summary.byKind.grant.unchanged + summary.byKind.contract.unchanged).toBe(
      Object.entries(summary.byFormat)
        .filter(([format]) => format !== 'sam-federal-hierarchy')
        .reduce((s, [, c]) => s + c.imported, 0),
    );
    expect(summary.byKind.funder.created).toBe(247 + summary.fundersFromAgencyNames);
    const stats = await api.get('/grants-api?opportunity_type=all&count_only=true');
    expect(stats.body.pagination.total).toBe(summary.byKind.grant.created);
  });

  it('links every grant and contract to a stored funder', async () => {
    const funderIds = new Set<string>();
    for await (const page of api.stack.services.store.scan('funder')) for (const funder of page) funderIds.add(funder.id);
    for (const kind of ['grant', 'contract'] as const) {
      for await (const page of api.stack.services.store.scan(kind)) {
        for (const record of page) expect(funderIds.has(record.funder_id), `${kind} ${record.id}`).toBe(true);
      }
    }
  });

  it('G2 (search2/fetchOpportunity scraper): PA-24-155 field by field', async () => {
    const line = sharedDataLine('grants.jsonl', (l) => l.opportunity_number === 'PA-24-155');
    const { status, body } = await api.get(`/grants-api/${recordIdOf('grant', 'grants.gov', 'PA-24-155')}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      title: line.title,
      description: line.description,
      deadline_date: line.deadline_date,
      created_at: `${line.posted_date}T00:00:00Z`,
      status: 'posted',
      categories: ['Health'],
      listing_url: line.url,
      source: 'grants.gov',
      source_id: 'PA-24-155',
      states: [],
      opportunity_type: 'open',
      amount_min: null,
      amount_max: null,
      requires_501c3: false, // nonprofits with or without 501(c)(3) are eligible
    });
    expect([...body.eligible_applicants].sort()).toEqual(['academic', 'for_profit', 'municipality', 'nonprofit', 'tribal']);
    const funder = await api.get(`/funders-api/${body.funder_id}`);
    expect(funder.body.name).toBe(body.funder_name);
  });

  it('G4 (XML extract): OJJDP-2008-1900 field by field', async () => {
    const line = sharedDataLine('grants.jsonl', (l) => l.FundingOppNumber === 'OJJDP-2008-1900');
    const { body } = await api.get(`/grants-api/${recordIdOf('grant', 'grants.gov', 'OJJDP-2008-1900')}`);
    expect(body).toMatchObject({
      title: line.FundingOppTitle,
      amount_min: 0,
      amount_max: 530000,
      deadline_date: '2008-07-03',
      created_at: '2008-06-06T00:00:00Z',
      status: 'closed',
      categories: ['Law, Justice and Legal Services'],
    });
    expect(body.description.slice(0, 60)).toBe(line.FundingOppDescription.replace(/\s+/g, ' ').slice(0, 60));
  });

  it('G1 (simpler.grants.gov tracker CSV): PD-23-1417 is found by keyword search', async () => {
    const { body } = await api.get('/grants-api?search=interfacial%20engineering&opportunity_type=all&status=posted,closed,forecasted');
    const hit = body.results.find((r: { source_id: string }) => r.source_id === 'PD-23-1417');
    expect(hit).toBeDefined();
    expect(hit.listing_url).toBe('https://simpler.grants.gov/opportunity/454a2d4c-82e7-4159-a8b3-b666bc1347e6');
  });

  it('C1 (SAM.gov Get Opportunities v2): notice f03a69ff… field by field', async () => {
    const line = sharedDataLine('contracts.jsonl', (l) => l.noticeId === 'f03a69ff98c04d77a27c0c1c6267bc8a');
    const { body } = await api.get(`/contracts-api/${recordIdOf('contract', 'sam.gov', line.noticeId)}`);
    expect(body).toMatchObject({
      title: line.title,
      naics: '611420',
      set_aside_code: null,
      primary_contact_email: 'margret.west@us.af.mil',
      deadline_date: '2026-08-19',
      status: 'closed',
      states: ['IL'],
      listing_url: line.uiLink,
      document_url: line.resourceLinks[0],
      categories: ['Training and Education'],
      created_at: '2026-08-13T00:00:00Z',
    });
  });

  it('A1 (NSF award search CSV): award 2238423 is an awarded project', async () => {
    const line = sharedDataLine('awards.jsonl', (l) => l.AwardNumber === '2238423');
    const { body } = await api.get(`/grants-api/${recordIdOf('grant', 'nsf', '2238423')}`);
    expect(body).toMatchObject({
      title: line.Title,
      opportunity_type: 'awarded',
      status: 'closed',
      deadline_date: null,
      project_end_date: '2028-06-30',
      amount_min: 17764,
      amount_max: 17764,
      states: ['NY'],
      source: 'nsf',
      listing_url: 'https://www.nsf.gov/awardsearch/showAward?AWD_ID=2238423',
    });
    expect(body.description).not.toContain('<br/>');
  });

  it('A4 (USAspending spending_by_award): PR-2019-006 is an awarded project in Puerto Rico', async () => {
    const line = sharedDataLine('awards.jsonl', (l) => l['Award ID'] === 'PR-2019-006');
    const { body } = await api.get(`/grants-api/${recordIdOf('grant', 'usaspending', line.generated_internal_id)}`);
    expect(body).toMatchObject({ opportunity_type: 'awarded', amount_max: 218031, states: ['PR'], created_at: '2019-03-21T00:00:00Z' });
    expect(body.funder_name).toMatch(/transportation/i); // CFDA 20.x
  });

  it('F1 (SAM.gov Federal Hierarchy): the Bureau of Labor Statistics', async () => {
    const line = sharedDataLine('funders.jsonl', (l) => l.orgKey === 100116370);
    const { body } = await api.get(`/funders-api/${recordIdOf('funder', 'sam.gov', '100116370')}`);
    expect(body).toMatchObject({
      name: 'Bureau of Labor Statistics',
      source: 'sam.gov',
      source_id: '100116370',
      created_at: '1996-07-30T04:00:00Z',
      website: null,
    });
    expect(body.summary.startsWith(line.description.slice(0, 60))).toBe(true);
    const search = await api.get('/funders-api?search=labor%20statistics');
    expect(search.body.results[0].id).toBe(body.id);
  });

  it('produced one created event per created record, through the indexer', async () => {
    const all = await events();
    for (const kind of RESOURCE_KINDS) {
      expect(all.filter((e) => e.event === `${kind}.created`)).toHaveLength(first.summary.byKind[kind].created);
    }
    expect(all.some((e) => e.event.endsWith('.updated'))).toBe(false);
    const sample = all.find((e) => e.event === 'grant.created')!;
    expect(sample.data.id).toBe(sample.record_id);
  });

  it('a second import changes nothing and emits nothing', async () => {
    const before = (await events()).length;
    const second = await ingestFiles(files, api.stack.services);
    for (const kind of RESOURCE_KINDS) {
      expect(second.summary.byKind[kind].created, kind).toBe(0);
      expect(second.summary.byKind[kind].updated, kind).toBe(0);
    }
    expect(second.summary.rejected).toBe(first.summary.rejected);
    expect((await events()).length).toBe(before);
  });

  it('a changed source record is one update, one grant.updated event, and searchable at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gcf-ingest-'));
    try {
      const line = sharedDataLine('grants.jsonl', (l) => l['Opportunity ID'] === 'PD-23-1417');
      writeFileSync(join(dir, 'changed.jsonl'), `${JSON.stringify({ ...line, Title: 'Interfacial Engineering and Zeolite Membranes' })}\n`);
      const result = await ingestFiles([join(dir, 'changed.jsonl')], api.stack.services);
      expect(result.summary.byKind.grant).toEqual({ created: 0, updated: 1, unchanged: 0 });
      const id = recordIdOf('grant', 'grants.gov', 'PD-23-1417');
      const updated = (await events()).filter((e) => e.event === 'grant.updated');
      expect(updated.map((e) => e.record_id)).toEqual([id]);
      expect(updated[0]!.data).toMatchObject({ title: 'Interfacial Engineering and Zeolite Membranes' });
      // NSF abstracts also mention zeolites; the title match ranks first.
      const search = await api.get('/grants-api?search=zeolite%20membranes&opportunity_type=all&status=posted,closed,forecasted');
      expect(search.body.results[0]).toMatchObject({ id, title: 'Interfacial Engineering and Zeolite Membranes' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
