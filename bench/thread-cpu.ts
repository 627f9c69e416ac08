/** CPU time of a process's threads from /proc (Linux), for the probes. */
import { readdir, readFile } from 'node:fs/promises';

const TICK_US = 1e6 / 100; // USER_HZ

/**
 * CPU microseconds per thread: `main` for the main thread, the others by id (`node#<tid>`: Node's
 * worker threads and V8's helpers all go by `node`, so only the id tells the log worker apart).
 */
export async function threadCpu(pid: number): Promise<Map<string, number>> {
  const byThread = new Map<string, number>();
  for (const tid of await readdir(`/proc/${pid}/task`)) {
    try {
      const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = tid === String(pid) ? 'main' : `${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))}#${tid}`;
      byThread.set(name, cpuOfStat(stat));
    } catch {
      // the thread ended between readdir and read
    }
  }
  return byThread;
}

/** CPU microseconds of a whole process (all its threads), from /proc (Linux). */
export async function processCpu(pid: number): Promise<number> {
  return cpuOfStat(await readFile(`/proc/${pid}/stat`, 'utf8'));
}

/** utime + stime of a `stat` line, in microseconds (the fields after the command name). */
function cpuOfStat(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_US;
}
