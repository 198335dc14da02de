import jsonata from 'jsonata';

/**
 * `run_if`: whether a block (or a parallel step) runs, as a JSONata expression over the run's
 * context: `input.message`, `input.parameters.…`, `steps.<block>.output.…` and `previous_output.…`.
 * JSONata (the language AWS Step Functions' conditions use) parses and evaluates it; this module
 * admits only a small part of it, checked on the parsed tree at publish: paths (names and literal
 * `[n]` indexes), string, number, boolean and null literals, lists of them, comparisons
 * (`= != < <= > >=`), `and`, `or`, `in`, parentheses, and the two functions `$not(x)` and
 * `$exists(x)`. No other function call, no lambda, variable, regex, filter, wildcard, sort,
 * transform or arithmetic: a condition reads values and compares them, and cannot loop.
 *
 * The block runs when the condition is `true`; `false`, or nothing at all (a path to a field that
 * is absent, or of a skipped block, whose output is null), skips it. Any other result (a string, a
 * number) is the author's mistake and fails the run, as a comparison of two different types does.
 */
export const RUN_CONDITION_MAX_LENGTH = 2000;

type Node = { type: string; value?: unknown; [key: string]: unknown };

const COMPARISONS = new Set(['=', '!=', '<', '<=', '>', '>=', 'in', 'and', 'or']);
const FUNCTIONS = new Set(['not', 'exists']);
const ROOTS = new Set(['input', 'steps', 'previous_output']);

/** A path a condition reads: as written (`steps.route.output.queue`), and for `steps` the block it names. */
export interface ConditionPath {
  text: string;
  block: string | null;
}

export type ParsedCondition = { ok: true; paths: ConditionPath[] } | { ok: false; problem: string };

/** Parses and checks a condition; answers the paths it reads, or what is wrong with it. */
export function parseRunCondition(text: string): ParsedCondition {
  if (text.trim() === '') return { ok: false, problem: 'is empty' };
  if (text.length > RUN_CONDITION_MAX_LENGTH) return { ok: false, problem: `is longer than ${RUN_CONDITION_MAX_LENGTH} characters` };
  let tree: Node;
  try {
    tree = jsonata(text).ast() as Node;
  } catch (error) {
    const { message, position } = error as { message: string; position?: number };
    return { ok: false, problem: `does not parse${position === undefined ? '' : ` (at character ${position})`}: ${message}` };
  }
  const paths = new Map<string, ConditionPath>();
  const problem = check(tree, paths);
  return problem === null ? { ok: true, paths: [...paths.values()] } : { ok: false, problem };
}

function check(node: Node, paths: Map<string, ConditionPath>): string | null {
  switch (node.type) {
    case 'string':
    case 'number':
    case 'value':
      return null;
    case 'path':
      return checkPath(node, paths);
    case 'binary':
      if (!COMPARISONS.has(String(node.value))) return `uses the operator ${String(node.value)}; a condition compares (= != < <= > >=, in) and combines (and, or)`;
      return check(node.lhs as Node, paths) ?? check(node.rhs as Node, paths);
    case 'unary':
      // A list literal, for `in`: its items are literals too.
      if (node.value === '[') return firstProblem(node.expressions as Node[], (item) => (['string', 'number', 'value'].includes(item.type) ? null : 'lists only literal values (strings, numbers, true, false, null)'));
      return `uses the operator ${String(node.value)}; a condition compares and combines values`;
    case 'block':
      return (node.expressions as Node[]).length === 1 ? check((node.expressions as Node[])[0]!, paths) : 'holds several expressions in parentheses; a condition is one';
    case 'function': {
      const name = (node.procedure as Node).value;
      if ((node.procedure as Node).type !== 'variable' || !FUNCTIONS.has(String(name))) return `calls $${String(name)}(); a condition calls only $not() and $exists()`;
      if ((node.arguments as Node[]).length !== 1) return `$${String(name)}() takes one argument`;
      return check((node.arguments as Node[])[0]!, paths);
    }
    default:
      return `uses ${describeNode(node)}; a condition reads paths, compares them with values and combines the comparisons`;
  }
}

function checkPath(node: Node, paths: Map<string, ConditionPath>): string | null {
  const steps = node.steps as Node[];
  const parts: string[] = [];
  for (const step of steps) {
    if (step.type !== 'name') return `uses ${describeNode(step)} in a path; a path is names and [n] indexes`;
    const stages = (step.stages as Node[] | undefined) ?? [];
    const indexes: number[] = [];
    for (const stage of stages) {
      const index = (stage.expr as Node | undefined) ?? null;
      if (stage.type !== 'filter' || index?.type !== 'number' || !Number.isInteger(index.value)) return 'filters a path; a path takes only literal [n] indexes';
      indexes.push(index.value as number);
    }
    if (step.group || step.focus || step.tuple || step.keepArray) return 'uses a path operator; a path is names and [n] indexes';
    parts.push(`${/^[A-Za-z_][A-Za-z0-9_]*$/.test(String(step.value)) ? String(step.value) : `\`${String(step.value)}\``}${indexes.map((i) => `[${i}]`).join('')}`);
  }
  const root = String(steps[0]!.value);
  if (!ROOTS.has(root)) return `reads ${root}; a condition reads input.message, input.parameters.…, steps.<block>.output.… or previous_output.…`;
  if (root === 'steps' && (steps.length < 3 || steps[2]!.value !== 'output')) return `reads ${parts.join('.')}; a block's output is read as steps.<block>.output[.field…]`;
  const text = parts.join('.');
  paths.set(text, { text, block: root === 'steps' ? String(steps[1]!.value) : null });
  return null;
}

const describeNode = (node: Node): string =>
  ({ variable: 'a variable', lambda: 'a function definition', regex: 'a regular expression', wildcard: 'a wildcard', descendant: 'a descendant wildcard', condition: 'a ? : choice', apply: 'the ~> operator', bind: 'an assignment', sort: 'a sort', transform: 'a transform', parent: 'a parent step' })[node.type] ?? `a ${node.type} expression`;

function firstProblem<T>(items: T[], problemOf: (item: T) => string | null): string | null {
  for (const item of items) {
    const problem = problemOf(item);
    if (problem) return problem;
  }
  return null;
}

/** What a condition is evaluated against: the context named references read. */
export interface ConditionContext {
  input: { message: string | null; parameters: Record<string, unknown> };
  steps: Readonly<Record<string, { output: unknown }>>;
  previous_output: unknown;
}

/** A condition's outcome: run or skip, with the value of each path it read (for the step's record); or why it could not be decided. */
/** A condition that could not decide: the service's words (`message`), and the run's values it quotes (`detail`, sealed with the run's data). */
export type ConditionOutcome = { ok: true; run: boolean; values: Record<string, unknown> } | { ok: false; message: string; detail?: string };

/** A checked condition, ready to decide runs: compiled once, evaluated as often as needed. */
export type CompiledCondition = (context: ConditionContext) => Promise<ConditionOutcome>;

/** Compiles a condition (and each path it reads, for the record); a condition that is refused decides every run as failed, saying why. */
export function compileRunCondition(text: string): CompiledCondition {
  const parsed = parseRunCondition(text);
  if (!parsed.ok) return () => Promise.resolve({ ok: false, message: `run_if ${parsed.problem}` });
  const condition = jsonata(text);
  const paths = parsed.paths.map((path) => ({ text: path.text, expression: jsonata(path.text) }));
  return async (context) => {
    try {
      const result = (await condition.evaluate(context)) as unknown;
      if (result !== undefined && typeof result !== 'boolean') return { ok: false, message: 'run_if gave a value that is not true or false', detail: String(JSON.stringify(result)).slice(0, 200) };
      const values: Record<string, unknown> = {};
      for (const path of paths) {
        const value = (await path.expression.evaluate(context)) as unknown;
        Object.defineProperty(values, path.text, { value: value === undefined ? null : value, enumerable: true, writable: true, configurable: true });
      }
      return { ok: true, run: result === true, values };
    } catch (error) {
      return { ok: false, message: 'run_if could not be evaluated', detail: (error as Error).message };
    }
  };
}
