import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';

export interface MachineInfo {
  /** What `nproc` prints: the CPUs this process may use. */
  cpus: number;
  cpuModel: string;
  memoryBytes: number;
  node: string;
  /** 1, 5 and 15 minute load averages when the bench started: how busy the shared machine was. */
  loadAverage: number[];
  startedAt: Date;
}

export function describeMachine(): MachineInfo {
  return {
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    memoryBytes: totalmem(),
    node: process.version,
    loadAverage: loadavg(),
    startedAt: new Date(),
  };
}
