/**
 * Off-topic probes: everyday queries no grant or federal contract should answer. The design asks
 * that such a query find nothing (DESIGN.md, "Relevance"), so any result is counted against the
 * system, whatever its relevance; the top result is kept to show why it matched.
 */
import type { OpportunityKind } from './collection';
import { type RankedHit, type SearchSystem, SYSTEMS, type SystemName } from './systems';

export interface ProbeAnswer {
  probe: string;
  kind: OpportunityKind;
  system: SystemName;
  total: number;
  top: RankedHit | null;
}

const KINDS: readonly OpportunityKind[] = ['grant', 'contract'];

export async function runProbes(probes: readonly string[], systems: Record<SystemName, SearchSystem>): Promise<ProbeAnswer[]> {
  const answers: ProbeAnswer[] = [];
  for (const probe of probes) {
    for (const kind of KINDS) {
      for (const system of SYSTEMS) {
        const { hits, total } = await systems[system](kind, probe, 1);
        answers.push({ probe, kind, system, total, top: hits[0] ?? null });
      }
    }
  }
  return answers;
}

export interface ProbeSummary {
  system: SystemName;
  /** Probes with at least one result, on grants, on contracts, and on either. */
  grants: number;
  contracts: number;
  either: number;
}

export function summariseProbes(_probes: readonly string[], answers: readonly ProbeAnswer[]): ProbeSummary[] {
  return SYSTEMS.map((system) => {
    const answered = (kind?: OpportunityKind) =>
      new Set(answers.filter((a) => a.system === system && a.total > 0 && (!kind || a.kind === kind)).map((a) => a.probe)).size;
    return { system, grants: answered('grant'), contracts: answered('contract'), either: answered() };
  });
}

/** Probes that any of the given systems answered on either kind. */
export function probesAnsweredBy(answers: readonly ProbeAnswer[], systems: readonly SystemName[]): string[] {
  const probes = new Set(answers.filter((a) => a.total > 0 && systems.includes(a.system)).map((a) => a.probe));
  return [...probes];
}

export function validateProbes(probes: unknown, field = 'off_topic_probes'): string[] {
  if (!Array.isArray(probes) || probes.some((p) => typeof p !== 'string' || p.trim() === '')) {
    throw new Error(`queries.json: ${field} must be an array of non-empty strings`);
  }
  const duplicates = probes.filter((p, i) => probes.indexOf(p) !== i);
  if (duplicates.length > 0) throw new Error(`queries.json: duplicate probes in ${field}: ${duplicates.join(', ')}`);
  return probes as string[];
}
