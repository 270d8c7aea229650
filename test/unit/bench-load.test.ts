import { describe, expect, it } from 'vitest';
import { RSS_SAMPLE_SECONDS, type RssSample, rssFindings } from '../../bench/load-bench';
import { LOAD_MARKERS, loadSection } from '../../bench/load-report';
import { LOAD_KINDS, matchBodies, searchTexts, splitConnections, workload } from '../../bench/load-workload';
import { parseListQuery } from '../../lambdas/core/query/list-query';

// The pure parts of `npm run bench:load` (bench/load-*.ts): the connection split, the RSS growth
// check, and the request generators, whose every request must be one the API accepts.

const samples = (rssMb: (seconds: number) => number, durationSeconds: number): RssSample[] => {
  const out: RssSample[] = [];
  for (let s = 0; s <= durationSeconds; s += RSS_SAMPLE_SECONDS) out.push({ seconds: s, rssBytes: rssMb(s) * 1e6 });
  return out;
};

describe('bench:load connection split', () => {
  it('gives every kind a connection and sums to the total', () => {
    for (const total of [6, 7, 10, 12, 13, 24, 100]) {
      const split = splitConnections(total);
      expect(Object.values(split).reduce((a, b) => a + b, 0)).toBe(total);
      for (const kind of LOAD_KINDS) expect(split[kind]).toBeGreaterThanOrEqual(1);
    }
    expect(splitConnections(12)).toEqual({ list: 3, search: 2, semantic: 1, hybrid: 1, get: 4, match: 1 });
  });

  it('refuses fewer connections than kinds', () => {
    expect(() => splitConnections(5)).toThrow(/at least 6/);
  });
});

describe('bench:load RSS check', () => {
  it('compares the end with the end of the first minute, and fails at 10% growth', () => {
    const flat = rssFindings(
      samples((s) => (s < 30 ? 500 : 800), 600),
      600,
    );
    expect(flat.firstMinuteBytes).toBe(800e6);
    expect(flat.growth).toBeCloseTo(0, 6);
    expect(flat).toMatchObject({ checked: true, pass: true });

    const leaking = rssFindings(
      samples((s) => 800 + s / 5, 600),
      600,
    );
    expect(leaking.growth).toBeGreaterThan(0.1);
    expect(leaking).toMatchObject({ checked: true, pass: false });
  });

  it('takes medians over 30 s, so samples at garbage collector peaks do not decide', () => {
    const spiky = rssFindings(
      samples((s) => (s === 600 || s === 590 || s === 45 ? 1000 : s === 50 ? 700 : 800), 600),
      600,
    );
    expect(spiky.firstMinuteBytes).toBe(800e6);
    expect(spiky.endBytes).toBe(800e6);
    expect(spiky.pass).toBe(true);
  });

  it('does not check a run of a minute or less', () => {
    const short = rssFindings(
      samples(() => 800, 60),
      60,
    );
    expect(short).toMatchObject({ checked: false, pass: true, growth: null });
    expect(
      rssFindings(
        samples(() => 800, 20),
        20,
      ).firstMinuteBytes,
    ).toBeNull();
  });
});

describe('bench:load workload', () => {
  const today = '2026-11-25';
  const texts = searchTexts();
  const bodies = matchBodies();

  it('sends list and search requests the API accepts, each kind with its own mode', () => {
    const load = workload(today, ['g1', 'g2'], texts, bodies);
    for (let i = 0; i < 500; i++) {
      for (const kind of ['list', 'search', 'semantic', 'hybrid'] as const) {
        const request = load.next[kind]();
        expect(request.method).toBe('GET');
        const url = new URL(request.path, 'http://x');
        expect(url.pathname).toBe('/grants-api');
        const query: Record<string, string[]> = {};
        for (const [name, value] of url.searchParams) (query[name] ??= []).push(value);
        // Throws on any parameter the API would answer with a 400.
        const parsed = parseListQuery('grant', query, today);
        if (kind === 'list') expect(parsed.search).toBeUndefined();
        else expect(parsed.search?.mode).toBe(kind === 'search' ? 'keyword' : kind);
      }
    }
  });

  it('gets known ids and posts match bodies, every other mission unique', () => {
    const load = workload(today, ['grant/a b', 'g2'], texts, bodies);
    expect(load.next.get().path).toMatch(/^\/grants-api\/(grant%2Fa%20b|g2)$/);
    const missions = Array.from({ length: 4 }, () => JSON.parse(load.next.match().body!) as { profile: { mission: string } });
    expect(missions[1]!.profile.mission.startsWith(missions[0]!.profile.mission)).toBe(true);
    expect(missions[1]!.profile.mission).not.toBe(missions[0]!.profile.mission);
    expect(missions[2]!.profile.mission).not.toBe(missions[0]!.profile.mission);
  });

  it('is deterministic for a seed', () => {
    const a = workload(today, ['g1', 'g2', 'g3'], texts, bodies, 1);
    const b = workload(today, ['g1', 'g2', 'g3'], texts, bodies, 1);
    for (let i = 0; i < 50; i++) for (const kind of LOAD_KINDS) expect(a.next[kind]()).toEqual(b.next[kind]());
  });

  it('renders an empty section with its markers when the part did not run', () => {
    expect(loadSection(null)).toMatch(new RegExp(`^${LOAD_MARKERS.start}[\\s\\S]*${LOAD_MARKERS.end}$`));
  });
});
