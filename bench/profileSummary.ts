/** A V8 CPU profile as the inspector's Profiler.stop answers it. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; hitCount?: number; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Where a frame's code lives: our folder (src/execution, …), a dependency's package, Node's internals, or V8's pseudo-frames. */
export function placeOf(url: string, functionName: string, root: string): string {
  if (url === '') return functionName === '(garbage collector)' ? 'gc' : functionName === '(idle)' ? 'idle' : functionName === '(program)' ? 'v8 (program)' : `v8 ${functionName}`;
  if (url.startsWith('node:')) return `node ${url.slice('node:'.length).split('/')[0]}`;
  const file = url.replace(/^file:\/\//, '');
  const modules = file.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = file.slice(modules + '/node_modules/'.length).split('/');
    return `npm ${rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  const relative = file.startsWith(root) ? file.slice(root.length + 1) : file;
  const parts = relative.split('/');
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

/**
 * Self time per place and the top functions, in milliseconds over the profile and per run: each
 * sample's time goes to the frame that was running (its self time), which says where the CPU went,
 * not who asked for it.
 */
export function summarizeProfile(profile: CpuProfile, runs: number, root: string) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const places = new Map<string, number>();
  const functions = new Map<string, number>();
  let total = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)!.callFrame;
    const place = placeOf(frame.url, frame.functionName, root);
    places.set(place, (places.get(place) ?? 0) + us);
    if (place !== 'idle') {
      const name = `${frame.functionName || '(anonymous)'} ${place}:${frame.lineNumber + 1}`;
      functions.set(name, (functions.get(name) ?? 0) + us);
      total += us;
    }
  }
  const ms = (us: number) => Number((us / 1000).toFixed(1));
  const perRun = (us: number) => Number((us / 1000 / runs).toFixed(3));
  const sorted = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
  return {
    profiledMs: ms(profile.endTime - profile.startTime),
    busyMs: ms(total),
    busyMsPerRun: perRun(total),
    places: sorted(places, 40).map(([place, us]) => ({ place, ms: ms(us), msPerRun: perRun(us), share: Number((us / (total || 1)).toFixed(3)) })),
    topFunctions: sorted(functions, 30).map(([fn, us]) => ({ function: fn, ms: ms(us), msPerRun: perRun(us) })),
  };
}
