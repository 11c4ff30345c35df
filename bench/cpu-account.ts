// How much of the machine's CPU went to processes outside the bench during a run (Linux /proc). Bench side.
import { readFileSync } from 'node:fs';

/** Kernel clock ticks per second for /proc CPU times (USER_HZ; 100 on Linux). */
const TICKS_PER_SECOND = 100;

function systemTicks(): { busy: number; total: number } | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
    const [user, nice, system, idle, iowait, irq, softirq, steal] = line
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    const busy = user! + nice! + system! + irq! + softirq! + steal!;
    return { busy, total: busy + idle! + iowait! };
  } catch {
    return undefined;
  }
}

/** CPU time (user + system) a process has used so far, in milliseconds; undefined when it cannot be read. */
export function processCpuMs(pid: number): number | undefined {
  const ticks = processTicks(pid);
  return ticks === undefined ? undefined : (ticks * 1000) / TICKS_PER_SECOND;
}

/** User + system CPU ticks a process has used so far, or undefined when it cannot be read. */
function processTicks(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After "pid (comm) ", utime and stime are the 12th and 13th fields.
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

export interface CpuShare {
  /** Share of all cores used by the bench's own processes (orchestrator, dev server, worker), 0..1. */
  readonly bench: number;
  /** Share of all cores used by everything else on the machine, 0..1. */
  readonly others: number;
}

/**
 * Starts counting now. Call `read(pids)` while the bench's child processes still run: their whole CPU time
 * counts as the bench's (they started after this), and the orchestrator's is taken from its own counter.
 */
export function startCpuAccount(): { read(childPids: readonly number[]): CpuShare | undefined } {
  const startSystem = systemTicks();
  const startSelf = process.cpuUsage();
  return {
    read(childPids) {
      const endSystem = systemTicks();
      if (!startSystem || !endSystem) return undefined;
      const self = process.cpuUsage(startSelf);
      const selfTicks = ((self.user + self.system) / 1e6) * TICKS_PER_SECOND;
      const childTicks = childPids.reduce((sum, pid) => sum + (processTicks(pid) ?? 0), 0);
      const total = endSystem.total - startSystem.total;
      const busy = endSystem.busy - startSystem.busy;
      if (total <= 0) return undefined;
      const bench = Math.min(busy, selfTicks + childTicks);
      return { bench: bench / total, others: Math.max(0, busy - bench) / total };
    },
  };
}
