/**
 * Where a process's CPU goes, measured in one run: a sampling CPU profile of this process while `run` works, and the
 * share of its busy samples spent inside chosen code. A share compares two costs within the same samples, so a busy or
 * slow machine moves both alike, where two separate runs (with and without the code) differ by the machine's noise.
 */
import { Session } from 'node:inspector/promises';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

/** A V8 CPU profile as the inspector's Profiler.stop gives it. */
export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** A stack frame a share is asked about. */
export type Frame = ProfileNode['callFrame'];

const SAMPLING_INTERVAL_US = 250;

/** Runs `run` while this process is profiled. */
export async function profiled<T>(run: () => Promise<T>): Promise<{ result: T; profile: CpuProfile }> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: SAMPLING_INTERVAL_US });
    await session.post('Profiler.start');
    const result = await run();
    const { profile } = (await session.post('Profiler.stop')) as { profile: CpuProfile };
    return { result, profile };
  } finally {
    session.disconnect();
  }
}

/**
 * The share of the profile's busy time (every sample but idle ones) spent in frames `inside` matches, counting the
 * functions they call; and how many busy samples it rests on.
 */
export function busyShare(
  profile: CpuProfile,
  inside: (frame: Frame) => boolean,
): { share: number; samples: number } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const within = new Map<number, boolean>();
  const isWithin = (id: number): boolean => {
    const known = within.get(id);
    if (known !== undefined) return known;
    const up = parent.get(id);
    const result = inside(byId.get(id)!.callFrame) || (up !== undefined && isWithin(up));
    within.set(id, result);
    return result;
  };
  let busy = 0;
  let matched = 0;
  let samples = 0;
  profile.samples.forEach((id, i) => {
    if (byId.get(id)!.callFrame.functionName === '(idle)') return;
    const dt = profile.timeDeltas[i] ?? 0;
    busy += dt;
    samples++;
    if (isWithin(id)) matched += dt;
  });
  return { share: busy === 0 ? 0 : matched / busy, samples };
}
