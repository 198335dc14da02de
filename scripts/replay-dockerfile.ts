/**
 * Replays the Dockerfile without a container engine (none can be had on CI): each stage in a scratch
 * folder standing for its image's root, on this machine's Node 24 (the `node` dev dependency) in
 * place of the `node:24` base image. Every COPY must find what it names in the build context
 * (committed files, less .dockerignore) or in the stage it copies from; every RUN must pass; then the
 * last stage's ENTRYPOINT + CMD must serve /api/v1/health (on the embedded PostgreSQL, in a scratch
 * data folder) and its HEALTHCHECK must pass. What a replay cannot show (file ownership, the `node`
 * user, absolute paths in RUN) is kept out of the Dockerfile's RUN steps.
 * `npm run check:docker`.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Ignore } from '@balena/dockerignore';
import { type Copy, DockerfileParser, type Env, type From, type Instruction, type JSONInstruction } from 'dockerfile-ast';

const ROOT = path.resolve(import.meta.dirname, '..');
// A CommonJS module whose types declare an ES default export: required as what it is.
const ignore = createRequire(import.meta.url)('@balena/dockerignore') as () => Ignore;
const NODE_BIN = path.join(ROOT, 'node_modules/node/bin');

interface Stage {
  name: string | null;
  root: string;
  workdir: string;
  env: Record<string, string>;
  entrypoint: string[];
  cmd: string[];
  healthcheck: string[];
}

const fail = (line: number, message: string): never => {
  throw new Error(`Dockerfile line ${line + 1}: ${message}`);
};

/** The build context: committed and untracked files git does not ignore, less what .dockerignore excludes. */
function buildContext(): Set<string> {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter((file) => file && existsSync(path.join(ROOT, file)));
  const dockerignore = existsSync(path.join(ROOT, '.dockerignore')) ? readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n') : [];
  return new Set(ignore().add(dockerignore).filter(files));
}

/** The stage's folder for a path inside its image (absolute, or relative to the working directory). */
const inStage = (stage: Stage, target: string) => path.join(stage.root, path.posix.resolve(stage.workdir, target));

function copyFromContext(stage: Stage, line: number, context: Set<string>, sources: string[], destination: string) {
  const intoFolder = destination.endsWith('/') || sources.length > 1;
  for (const source of sources) {
    const prefix = path.posix.normalize(source).replace(/\/$/, '');
    const files = [...context].filter((file) => file === prefix || file.startsWith(`${prefix}/`));
    if (files.length === 0) fail(line, `COPY ${source}: nothing by that name in the build context (missing, or excluded by .dockerignore)`);
    for (const file of files) {
      // A folder's contents go into the destination; a file goes into it (a folder) or becomes it.
      const relative = file === prefix ? (intoFolder ? path.posix.basename(file) : '') : file.slice(prefix.length + 1);
      const target = path.join(inStage(stage, destination), relative);
      mkdirSync(path.dirname(target), { recursive: true });
      cpSync(path.join(ROOT, file), target);
    }
  }
}

function copyFromStage(stage: Stage, line: number, from: Stage, sources: string[], destination: string) {
  for (const source of sources) {
    const origin = inStage(from, source);
    if (!existsSync(origin)) fail(line, `COPY --from=${from.name ?? '?'} ${source}: the stage has no such path`);
    const target = inStage(stage, destination);
    const intoFolder = destination.endsWith('/') || (sources.length > 1 && statSync(origin).isFile());
    cpSync(origin, intoFolder ? path.join(target, path.basename(origin)) : target, { recursive: true });
  }
}

function run(stage: Stage, line: number, command: string) {
  const cwd = inStage(stage, '.');
  mkdirSync(cwd, { recursive: true });
  console.error(`[stage ${stage.name ?? 'final'}] RUN ${command}`);
  try {
    execFileSync('sh', ['-c', command], { cwd, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, ...stage.env, PATH: `${NODE_BIN}:${process.env.PATH}` } });
  } catch {
    fail(line, `RUN ${command} failed`);
  }
}

const jsonArguments = (instruction: Instruction, line: number) => {
  const strings = (instruction as JSONInstruction).getJSONStrings?.() ?? [];
  if (strings.length === 0) fail(line, `${instruction.getKeyword()} must use the JSON (exec) form`);
  return strings.map((s) => s.getJSONValue());
};

/** Each stage, replayed in order (its folder listed in `made`); returns the last. */
function replay(dockerfile: string, made: string[]): Stage {
  const context = buildContext();
  const stages: Stage[] = [];
  let stage: Stage | undefined;
  for (const instruction of DockerfileParser.parse(dockerfile).getInstructions()) {
    const line = instruction.getRange().start.line;
    const keyword = instruction.getKeyword();
    if (keyword === 'FROM') {
      const from = instruction as From;
      const major = process.versions.node.split('.')[0];
      const nodeMajor = execFileSync(path.join(NODE_BIN, 'node'), ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).trim();
      if (from.getImageName() !== 'node' || !from.getImageTag()?.startsWith(`${nodeMajor}-`)) fail(line, `FROM ${from.getImage()}: the replay stands in for node:${nodeMajor}-* only (this machine's npm runs on Node ${major})`);
      stage = { name: from.getBuildStage(), root: mkdtempSync(path.join(tmpdir(), 'seqflow-image-')), workdir: '/', env: {}, entrypoint: [], cmd: [], healthcheck: [] };
      execFileSync('chmod', ['755', stage.root]); // an image's root is world-readable: the embedded PostgreSQL runs as its own user when we are root
      stages.push(stage);
      made.push(stage.root);
      continue;
    }
    if (!stage) fail(line, `${keyword} before FROM`);
    const current = stage!;
    const args = instruction.getArguments().map((a) => a.getValue());
    switch (keyword) {
      case 'WORKDIR':
        current.workdir = path.posix.resolve(current.workdir, args[0]!);
        mkdirSync(inStage(current, '.'), { recursive: true });
        break;
      case 'ENV':
        for (const property of (instruction as Env).getProperties()) current.env[property.getName()] = property.getValue() ?? '';
        break;
      case 'COPY': {
        const paths = [...args];
        const destination = paths.pop()!;
        // From the flags themselves: the parser's getFromFlag() misses --from when another flag follows it.
        const fromName = (instruction as Copy).getFlags().find((flag) => flag.getName() === 'from')?.getValue() ?? undefined;
        if (fromName) {
          const from = stages.find((s) => s.name === fromName);
          if (!from || from === current) fail(line, `COPY --from=${fromName}: no earlier stage of that name`);
          copyFromStage(current, line, from!, paths, destination);
        } else copyFromContext(current, line, context, paths, destination);
        break;
      }
      case 'RUN':
        run(current, line, instruction.getRawArgumentsContent() ?? '');
        break;
      case 'ENTRYPOINT':
        current.entrypoint = jsonArguments(instruction, line);
        break;
      case 'CMD':
        current.cmd = jsonArguments(instruction, line);
        break;
      case 'HEALTHCHECK': {
        const cmd = instruction.getArguments().findIndex((a) => a.getValue() === 'CMD');
        if (cmd < 0) fail(line, 'HEALTHCHECK needs a CMD');
        current.healthcheck = JSON.parse(instruction.getRawArgumentsContent()!.slice(instruction.getRawArgumentsContent()!.indexOf('CMD') + 3).trim()) as string[];
        break;
      }
      case 'USER':
      case 'EXPOSE':
      case 'LABEL':
      case 'ARG':
      case 'VOLUME':
        break; // nothing a replay can check
      default:
        fail(line, `the replay does not know ${keyword}: teach scripts/replay-dockerfile.ts or keep to the instructions it knows`);
    }
  }
  if (!stage) throw new Error('the Dockerfile has no FROM');
  return stage;
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

/** Starts the image's command and waits for /api/v1/health, then runs its HEALTHCHECK; stops it either way. */
async function serve(image: Stage) {
  const [command, ...rest] = [...image.entrypoint, ...image.cmd];
  if (command !== 'node') throw new Error(`the image's command must start with node (it is ${command})`);
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'seqflow-image-data-'));
  execFileSync('chmod', ['755', dataDir]); // the embedded server runs as the postgres user when we are root
  const { DATABASE_URL: _external, ...outside } = process.env;
  // Loopback here (the image listens on every interface); a scratch data folder for the image's /home/node.
  const env = { ...outside, ...image.env, PATH: `${NODE_BIN}:${process.env.PATH}`, SEQFLOW_DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: String(port), SEQFLOW_CONSOLE_HOST: '127.0.0.1', SEQFLOW_CONSOLE_PORT: '0', SEQFLOW_METRICS_HOST: '127.0.0.1', SEQFLOW_METRICS_PORT: '0', SEQFLOW_DEMO: 'false', LOG_LEVEL: 'warn' };
  const cwd = inStage(image, '.');
  const server = spawn(path.join(NODE_BIN, 'node'), rest, { cwd, env, stdio: ['ignore', 'inherit', 'inherit'] });
  try {
    for (let i = 0; ; i++) {
      const answer = await fetch(`http://127.0.0.1:${port}/api/v1/health`).catch(() => undefined);
      if (answer?.ok) break;
      if (server.exitCode !== null || i >= 240) throw new Error('the image did not answer /api/v1/health');
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    console.error(`the image serves /api/v1/health on port ${port}`);
    const [check, ...checkArgs] = image.healthcheck;
    if (check) {
      if (check !== 'node') throw new Error(`the HEALTHCHECK must start with node (it is ${check})`);
      execFileSync(path.join(NODE_BIN, 'node'), checkArgs, { cwd, env, stdio: 'inherit' });
      console.error('its HEALTHCHECK passes');
    }
  } finally {
    server.kill('SIGTERM');
    await new Promise((resolve) => (server.exitCode !== null ? resolve(undefined) : server.once('exit', resolve)));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const made: string[] = [];
try {
  await serve(replay(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'), made));
} finally {
  for (const folder of made) rmSync(folder, { recursive: true, force: true });
}
