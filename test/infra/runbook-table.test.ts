import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RUNBOOK, runbookAnchorOf } from '../../lib/constructs/service-alarms';
import { PROJECT_ROOT } from '../../lib/project-root';
import { synthStage } from './synth-stacks';

/** How the runbook's table words each treatMissingData value. */
const MISSING_DATA_WORDS: Record<string, string> = { notBreaching: 'not breaching', missing: 'kept as is', breaching: 'breaching', ignore: 'ignored' };

/** The runbook's alarm table: `| [anchor](#anchor) | severity | fires when | missing data |` rows by anchor. */
function alarmTable(runbook: string): Map<string, { link: string; severity: string; missing: string }> {
  const rows = new Map<string, { link: string; severity: string; missing: string }>();
  for (const line of runbook.split('\n')) {
    const match = /^\| \[([a-z0-9-]+)\]\(([^)]*)\) \| ([^|]+) \| [^|]+ \| ([^|]+) \|$/.exec(line);
    if (match) rows.set(match[1]!, { link: match[2]!, severity: match[3]!.trim(), missing: match[4]!.trim() });
  }
  return rows;
}

describe("the runbook's alarm table follows the alarm definitions", () => {
  const { definitions } = synthStage('prod').stacks.stateless.alarms;
  const runbook = readFileSync(join(PROJECT_ROOT, RUNBOOK), 'utf8');
  const table = alarmTable(runbook);

  it('lists every alarm once (throttle alarms share a row), and nothing else', () => {
    expect([...table.keys()].sort()).toEqual([...new Set(definitions.map((d) => runbookAnchorOf(d.anchor)))].sort());
  });

  it.each(definitions.map((d) => [d.anchor, d] as const))('%s: its severity, missing-data handling and a link to its section', (anchor, definition) => {
    const section = runbookAnchorOf(anchor);
    const row = table.get(section)!;
    expect(row.link).toBe(`#${section}`);
    expect(runbook).toContain(`\n## ${section}\n`);
    expect(row.severity.split(/[ ,]+/)).toContain(definition.severity);
    expect(row.missing).toBe(MISSING_DATA_WORDS[definition.treatMissingData]);
  });
});
