/**
 * The issue-13 goals as a Markdown table, from the figures `npm run bench` printed as JSON: each row
 * with what it is compared with in the same run, and whether the goal holds on this machine.
 */
export interface GoalRow {
  figure: string;
  ours: string;
  comparedWith: string;
  ratio: string;
  goal: string;
  holds: boolean | null;
}

// The figures are the bench's own JSON; a section skipped by BENCH_ONLY leaves its rows out.
type Figures = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The statements sent per unit of work, where the section counted them (issue 41). */
const statements = (perUnit: number | undefined, unit: string) => (perUnit === undefined ? '' : `, ${perUnit} statements/${unit}`);

export function goalRows(f: Figures): GoalRow[] {
  const rows: GoalRow[] = [];
  const log = typeof f.postgres === 'object' ? f.postgres.appends.singleEvent16Writers : undefined;
  if (log) {
    rows.push({ figure: 'single-event appends, 16 writers', ours: `${log.appendsPerSecond}/s`, comparedWith: `plain committed INSERTs ${f.postgres.insertCeiling?.rowsPerSecond16Connections}/s`, ratio: `${log.ratioToInsertCeiling}`, goal: '>= 0.8', holds: log.ratioToInsertCeiling >= 0.8 });
    rows.push({ figure: 'same', ours: `${log.appendsPerSecond}/s`, comparedWith: `Emmett PostgreSQL store ${log.emmett.appendsPerSecond}/s`, ratio: `${log.emmett.oursToEmmett}`, goal: '> 1', holds: log.emmett.oursToEmmett > 1 });
  }
  const x = f.execute;
  if (typeof x === 'object') {
    rows.push({ figure: '/execute passthrough, c32', ours: `${x.passthrough.c32.perSecond}/s, p99 ${x.passthrough.c32.p99Ms} ms${statements(x.passthrough.c32.statementsPerRun, 'run')}`, comparedWith: `one-INSERT Fastify route ${x.insertRouteC32.perSecond}/s`, ratio: `${x.passthrough.c32ToInsertRoute}`, goal: '>= 0.7', holds: x.passthrough.c32ToInsertRoute >= 0.7 });
    rows.push({ figure: '/execute three blocks, c32', ours: `${x.threeBlocks.c32.perSecond}/s, p99 ${x.threeBlocks.c32.p99Ms} ms${statements(x.threeBlocks.c32.statementsPerRun, 'run')}`, comparedWith: `one-INSERT Fastify route ${x.insertRouteC32.perSecond}/s`, ratio: `${x.threeBlocks.c32ToInsertRoute}`, goal: '>= 500/s, p99 <= 100 ms, or >= 0.28', holds: (x.threeBlocks.c32.perSecond >= 500 && x.threeBlocks.c32.p99Ms <= 100) || x.threeBlocks.c32ToInsertRoute >= 0.28 });
    rows.push({ figure: '/execute llm, model 1 s, c500', ours: `${x.slowModelC500.perSecond}/s, RSS ${x.slowModelC500.serverMaxRssMiB} MiB`, comparedWith: `ideal ${x.slowModelC500.idealPerSecond}/s`, ratio: `${x.slowModelC500.ratioToIdeal}`, goal: '>= 0.9, RSS <= 1 GiB', holds: x.slowModelC500.ratioToIdeal >= 0.9 && x.slowModelC500.serverMaxRssMiB <= 1024 });
    const p = x.pauseResumeRoundTrip;
    rows.push({ figure: 'pause -> resume round trip', ours: `p99 ${p.p99Ms} ms`, comparedWith: `passthrough /execute c1 p99 ${p.passthroughC1P99Ms} ms`, ratio: `+${p.overheadP99Ms} ms`, goal: 'overhead <= 20 ms', holds: p.overheadP99Ms <= 20 });
    const m = x.memory;
    rows.push({ figure: `memory over ${m.runs} runs`, ours: `heap ${m.samples[0].heapUsedMiB} -> ${m.samples.at(-1).heapUsedMiB} MiB, RSS ${m.samples[0].rssMiB} -> ${m.samples.at(-1).rssMiB} MiB`, comparedWith: 'its first tenth', ratio: `${m.heapGrowthFirstToLastMiB >= 0 ? '+' : ''}${m.heapGrowthFirstToLastMiB} MiB`, goal: 'flat', holds: m.heapGrowthFirstToLastMiB <= 16 });
  }
  const e = f.erasureCost;
  if (typeof e === 'object') {
    for (const [name, figure] of [['passthrough', e.passthrough], ['three blocks', e.threeBlocks]] as const) {
      const runs = (values: number[]) => `${Math.min(...values)}-${Math.max(...values)}/s`;
      rows.push({ figure: `sealed run data, /execute ${name} c32 (${e.rounds} rounds)`, ours: `sealed ${runs(figure.sealedPerSecond)}`, comparedWith: `unsealed ${runs(figure.unsealedPerSecond)}`, ratio: `${figure.medianRatio} (median; ${Math.min(...figure.ratios)}-${Math.max(...figure.ratios)})`, goal: 'cost <= 5%', holds: figure.cost <= 0.05 });
    }
  }
  const j = f.jobs;
  if (typeof j === 'object' && typeof j.graphileWorker === 'object') {
    rows.push({ figure: '/jobs accept -> completed, passthrough', ours: `${j.ours.jobsPerSecond}/s${statements(j.ours.statementsPerJob, 'job')}`, comparedWith: `graphile-worker ${j.graphileWorker.jobsPerSecond}/s`, ratio: `${j.oursToGraphileWorker}`, goal: '>= 0.5', holds: j.oursToGraphileWorker >= 0.5 });
  }
  const b = f.backtest;
  if (typeof b === 'object') {
    rows.push({ figure: `backtest of ${b.recordedRuns} recorded runs, c32`, ours: `${b.concurrency32.pairsPerSecond} pairs/s, first result ${b.concurrency32.firstResultMs} ms`, comparedWith: `recording those runs, c32 ${b.recordingRunsPerSecond}/s`, ratio: `${(b.concurrency32.pairsPerSecond / b.recordingRunsPerSecond).toFixed(2)}`, goal: 'measured (issue 27)', holds: null });
  }
  const w = f.webhookDeliveries;
  if (typeof w === 'object') {
    rows.push({ figure: 'webhook deliveries (HTTPS)', ours: `${w.ours.deliveriesPerSecond}/s, terminal -> attempt p99 ${w.ours.terminalEventToFirstAttempt.p99Ms} ms${statements(w.ours.statementsPerDelivery, 'delivery')}`, comparedWith: `keep-alive undici client ${w.plainUndiciClient.deliveriesPerSecond}/s`, ratio: `${w.oursToPlainClient}`, goal: '>= 0.5, >= 1000/s, p99 <= 200 ms', holds: w.oursToPlainClient >= 0.5 && w.ours.deliveriesPerSecond >= 1000 && w.ours.terminalEventToFirstAttempt.p99Ms <= 200 });
  }
  const lag = typeof f.postgres === 'object' ? f.postgres.projectionLagUnderLoad : undefined;
  if (lag) rows.push({ figure: `projection lag at ${lag.commandsPerSecond} commands/s`, ours: `p99 ${lag.p99Ms} ms`, comparedWith: '-', ratio: '-', goal: 'p99 <= 100 ms', holds: lag.p99Ms <= 100 });
  const lag2 = typeof f.postgres === 'object' ? f.postgres.projectionLagAt2000 : undefined;
  // Falling behind shows as a lag that grows over the run: from the first quarter's commands to the last's.
  if (lag2) rows.push({ figure: `projection lag at ${lag2.commandsPerSecond} commands/s`, ours: `p99 ${lag2.p99Ms} ms, growing ${lag2.growthFirstToLastQuarterMs} ms over the run`, comparedWith: '-', ratio: '-', goal: 'p99 <= 50 ms, keeps up (grows <= 100 ms)', holds: lag2.p99Ms <= 50 && lag2.growthFirstToLastQuarterMs <= 100 });
  const lag4 = typeof f.postgres === 'object' ? f.postgres.projectionLagAt4000ParallelRunners : undefined;
  if (lag4) rows.push({ figure: `projection lag at ${lag4.commandsPerSecond} commands/s, ${lag4.runners} runners`, ours: `p99 ${lag4.p99Ms} ms, growing ${lag4.growthFirstToLastQuarterMs} ms over the run`, comparedWith: '-', ratio: '-', goal: 'keeps up (grows <= 100 ms)', holds: lag4.growthFirstToLastQuarterMs <= 100 });
  const c = f.cli;
  if (typeof c === 'object') rows.push({ figure: 'CLI write command (org create)', ours: `${c.orgCreateMedianMs} ms`, comparedWith: `seqflow --version ${c.versionMedianMs} ms`, ratio: `${c.writeToVersion}x`, goal: 'quote both', holds: null });
  const r = f.roles;
  if (typeof r === 'object') {
    const one = r.oneProcessAllRoles;
    const split = r.twoApiOneWorker;
    rows.push({ figure: '`seqflow serve`: 2 x `--role api` + `--role worker`', ours: `/execute passthrough c32 ${split.executePassthroughC32.perSecond}/s, /jobs ${split.jobsPerSecond}/s`, comparedWith: `one \`--role all\` process: ${one.executePassthroughC32.perSecond}/s, ${one.jobsPerSecond}/s`, ratio: `${(split.executePassthroughC32.perSecond / one.executePassthroughC32.perSecond).toFixed(2)}, ${(split.jobsPerSecond / one.jobsPerSecond).toFixed(2)}`, goal: 'measure', holds: null });
  }
  const whole = f.split;
  if (typeof whole === 'object') {
    const worst = Math.min(whole.splitToOne.executePassthroughC32, whole.splitToOne.jobs);
    rows.push({
      figure: '2 API + 2 workers + PgBouncer + 1 replica',
      ours: `/execute passthrough c32 ${whole.split.executePassthroughC32.perSecond}/s, /jobs ${whole.split.jobsPerSecond}/s`,
      comparedWith: `one \`--role all\` process, same cluster: ${whole.oneProcess.executePassthroughC32.perSecond}/s, ${whole.oneProcess.jobsPerSecond}/s`,
      ratio: `${whole.splitToOne.executePassthroughC32}, ${whole.splitToOne.jobs}`,
      goal: '>= 0.9',
      holds: worst >= 0.9,
    });
  }
  return rows;
}

export function markdownTable(rows: GoalRow[], machine: { cpus: number; loadAverage: number[] }): string {
  const mark = (holds: boolean | null) => (holds === null ? '-' : holds ? 'yes' : 'no');
  return [
    `Machine: ${machine.cpus} cores, load average ${machine.loadAverage.map((n) => n.toFixed(2)).join(' ')}`,
    '',
    '| figure | ours | compared with (same run) | ratio | goal | holds |',
    '|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.figure} | ${r.ours} | ${r.comparedWith} | ${r.ratio} | ${r.goal} | ${mark(r.holds)} |`),
  ].join('\n');
}
