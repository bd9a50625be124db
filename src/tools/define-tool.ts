/**
 * What every loader tool does around its own work: refuse servers the model may not use, check
 * the arguments, turn anything thrown into text, so `execute` rejects only when its caller
 * aborted it, and keep every answer within the one result budget.
 */
import type { z } from 'zod';
import { MAX_SERVER_NAME_CHARACTERS } from '../text-limits.js';
import { errorText } from './model-text.js';
import { errorResult, fitResultToBudget, notSentResult } from './results.js';
import { toParameters } from './schemas.js';
import type { LoaderToolContext } from './tool-context.js';
import type { LoaderTool, LoaderToolCallOptions, LoaderToolName, LoaderToolResult } from './types.js';

export interface LoaderToolSpec<Schema extends z.ZodType> {
  name: LoaderToolName;
  description: string;
  inputSchema: Schema;
  /**
   * Optional: the arguments as `inputSchema` would parse them, when they have the usual shape and
   * can be told without zod, else undefined (the schema then parses them). For the tools called
   * most often; it must accept nothing the schema refuses.
   */
  usualInput?: (args: unknown) => z.output<Schema> | undefined;
  run(args: z.output<Schema>, options: LoaderToolCallOptions): Promise<LoaderToolResult>;
}

/**
 * The longest `server`, `tool`, `uri` and search `query` a model may pass. Longer ones are refused
 * before any lookup, pattern match or ranking, and never echoed back: a made-up megabyte name
 * would otherwise cost time in every check and come back into the model's context. Checked here
 * rather than in the schemas, whose every byte the model reads.
 */
export const ARGUMENT_LENGTH_LIMITS = { server: MAX_SERVER_NAME_CHARACTERS, tool: 1024, uri: 16_384, query: 500 } as const;

type LimitedArgument = keyof typeof ARGUMENT_LENGTH_LIMITS;

function overLongText(field: LimitedArgument, value: unknown): string | undefined {
  const limit = ARGUMENT_LENGTH_LIMITS[field];
  if (typeof value !== 'string' || value.length <= limit) return undefined;
  const advice = field === 'query' ? 'Say what you want to do in fewer words.' : 'Use what load_mcp or search_mcp_tools listed.';
  return `The "${field}" argument is ${value.length} characters long; at most ${limit} are accepted. ${advice}`;
}

/**
 * The first over-long argument's refusal, in the order of ARGUMENT_LENGTH_LIMITS. Each field is
 * read by name: a loop over the field names made every read a keyed load with a changing key,
 * the loader's costliest check on every call.
 */
function overLongArgument(args: unknown): string | undefined {
  if (typeof args !== 'object' || args === null) return undefined;
  const fields = args as { [Field in LimitedArgument]?: unknown };
  return overLongText('server', fields.server) ?? overLongText('tool', fields.tool) ?? overLongText('uri', fields.uri) ?? overLongText('query', fields.query);
}

function serverNamed(args: unknown): string | undefined {
  const server = typeof args === 'object' && args !== null ? (args as { server?: unknown }).server : undefined;
  return typeof server === 'string' ? server : undefined;
}

function invalidArgumentsText(tool: LoaderToolName, error: z.ZodError): string {
  const problems = error.issues.map((issue) => {
    const field = issue.path.length > 0 ? issue.path.join('.') : '(the arguments object)';
    return `"${field}": ${issue.message}`;
  });
  return `Invalid arguments for ${tool}: ${problems.join('; ')}. Fix them and call ${tool} again.`;
}

/** What `execute` passes on when its caller gave no options: one shared object rather than a new one per call. */
const NO_OPTIONS: LoaderToolCallOptions = Object.freeze({});

export function defineLoaderTool<Schema extends z.ZodType>(
  spec: LoaderToolSpec<Schema>,
  { catalog, resultBudget }: Pick<LoaderToolContext, 'catalog' | 'resultBudget'>,
): LoaderTool {
  const fitToBudget = (result: LoaderToolResult): LoaderToolResult => fitResultToBudget(result, resultBudget);
  /** What went wrong, as text for the model; an abort stays an abort (nobody is waiting for text, and an agent loop must stop now). */
  const failure = (error: unknown, args: unknown, options: LoaderToolCallOptions): LoaderToolResult => {
    if (options.signal?.aborted) throw error;
    return fitToBudget(errorResult(`${spec.name} failed: ${errorText(error, serverNamed(args))}`));
  };
  /** The checks before the tool runs: a result when they refuse the call, else undefined. */
  const refusalBeforeParsing = (args: unknown): LoaderToolResult | undefined => {
    const overLong = overLongArgument(args);
    if (overLong !== undefined) return notSentResult(overLong, 'invalid_arguments');
    // Before the schema check: a denied name must read "not allowed", not "invalid option".
    const server = serverNamed(args);
    const refusal = server === undefined ? undefined : (catalog.refusal(server) ?? (spec.name === 'load_mcp' ? undefined : catalog.offRefusal(server)));
    return refusal === undefined ? undefined : notSentResult(refusal, 'server_unavailable');
  };
  // Not async functions: every call of a loader tool passes here, and a promise chain costs less than nested awaits.
  const run = (args: unknown, options: LoaderToolCallOptions): Promise<LoaderToolResult> => {
    try {
      const refused = refusalBeforeParsing(args);
      if (refused !== undefined) return Promise.resolve(refused);
      const usual = spec.usualInput?.(args);
      if (usual !== undefined) return spec.run(usual, options);
      const parsed = spec.inputSchema.safeParse(args);
      if (!parsed.success) return Promise.resolve(notSentResult(invalidArgumentsText(spec.name, parsed.error), 'invalid_arguments'));
      return spec.run(parsed.data, options);
    } catch (error) {
      // Handled with the run's own rejections, in execute.
      return Promise.reject(error);
    }
  };
  return {
    name: spec.name,
    description: spec.description,
    inputSchema: spec.inputSchema,
    parameters: toParameters(spec.inputSchema),
    execute(args, options = NO_OPTIONS) {
      // One `then` for both outcomes: a failure's text is fitted to the budget as well (an error message may be long).
      return run(args, options).then(fitToBudget, (error: unknown) => failure(error, args, options));
    },
  };
}
