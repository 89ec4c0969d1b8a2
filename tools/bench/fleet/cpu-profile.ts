import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The parts of a V8 .cpuprofile (written by `node --cpu-prof`) this summary reads. */
interface CpuProfile {
  readonly nodes: readonly {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface ProfileEntry {
  /** `function (file:line)`, the file relative to the workspace or to node_modules. */
  readonly frame: string;
  /** Share of the window's samples spent in this frame itself (self time). */
  readonly selfPercent: number;
}

export interface ProfileSummary {
  readonly windowSeconds: number;
  readonly samples: number;
  /** Share of samples that were idle (the event loop waiting), garbage collection, or program code. */
  readonly idlePercent: number;
  readonly gcPercent: number;
  readonly top: ProfileEntry[];
  /** Self time summed per package or workspace folder (`node_modules/kafkajs`, `libs/roles/controller`...). */
  readonly byArea: { area: string; selfPercent: number }[];
}

function areaOf(url: string, workspaceRoot: string): string {
  if (url === '') return '(native)';
  const path = url.replace(/^file:\/\//, '');
  const inModules = path.lastIndexOf('node_modules/');
  if (inModules >= 0) {
    const parts = path.slice(inModules + 'node_modules/'.length).split('/');
    return `node_modules/${parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]}`;
  }
  if (path.startsWith('node:')) return 'node';
  const inside = relative(workspaceRoot, path);
  if (inside.startsWith('..')) return path.split('/').slice(0, 3).join('/');
  const parts = inside.split('/');
  return parts[0] === 'libs' && parts[1] === 'roles' ? parts.slice(0, 3).join('/') : parts.slice(0, 2).join('/');
}

/**
 * Self time per frame over a wall-clock window [fromMs, toMs] (epoch ms) of the newest
 * profile in `dir`. The profile's clock is mapped to epoch ms through its end, which is
 * `endedAtMs`, the moment the profiled process exited.
 */
export function summariseProfile(
  dir: string,
  fromMs: number,
  toMs: number,
  endedAtMs: number,
  workspaceRoot: string,
  topCount = 15,
): ProfileSummary | undefined {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.cpuprofile'))
    .sort();
  const newest = files[files.length - 1];
  if (!newest) return undefined;
  const profile = JSON.parse(readFileSync(join(dir, newest), 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const toProfileClock = (epochMs: number): number => profile.endTime - (endedAtMs - epochMs) * 1000;
  const from = toProfileClock(fromMs);
  const to = toProfileClock(toMs);
  const counts = new Map<number, number>();
  let at = profile.startTime;
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    if (at < from || at > to) continue;
    counts.set(profile.samples[i], (counts.get(profile.samples[i]) ?? 0) + 1);
    total += 1;
  }
  if (total === 0) return undefined;
  const perFrame = new Map<string, number>();
  const perArea = new Map<string, number>();
  let idle = 0;
  let gc = 0;
  for (const [id, count] of counts) {
    const frame = byId.get(id)?.callFrame;
    if (!frame) continue;
    if (frame.functionName === '(idle)') idle += count;
    if (frame.functionName === '(garbage collector)') gc += count;
    const file = frame.url
      ? frame.url.includes('node_modules/')
        ? frame.url.slice(frame.url.lastIndexOf('node_modules/'))
        : relative(workspaceRoot, frame.url.replace(/^file:\/\//, ''))
      : '';
    const key = `${frame.functionName || '(anonymous)'}${file ? ` (${file}:${frame.lineNumber + 1})` : ''}`;
    perFrame.set(key, (perFrame.get(key) ?? 0) + count);
    const area = frame.url ? areaOf(frame.url, workspaceRoot) : frame.functionName;
    perArea.set(area, (perArea.get(area) ?? 0) + count);
  }
  const percent = (count: number): number => Math.round((count / total) * 1000) / 10;
  return {
    windowSeconds: Math.round((toMs - fromMs) / 100) / 10,
    samples: total,
    idlePercent: percent(idle),
    gcPercent: percent(gc),
    top: [...perFrame]
      .sort((a, b) => b[1] - a[1])
      .slice(0, topCount)
      .map(([frame, count]) => ({ frame, selfPercent: percent(count) })),
    byArea: [...perArea]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12)
      .map(([area, count]) => ({ area, selfPercent: percent(count) })),
  };
}
