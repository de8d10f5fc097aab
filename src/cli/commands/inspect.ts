/**
 * `agent-api inspect FILE_OR_URL... [--json]`: what the service understands of each page (URL, page type and
 * confidence, language, title, H1, headings, word count, main text, and the terms and names it would extract), to see
 * why Optimize or a brief treats a page the way it does.
 *
 * URLs (an `http://` or `https://` scheme) are fetched by the fetcher the server builds from the same configuration
 * (compose.ts): the web archive first, then the SSRF-safe fetcher, or the archive alone with AGENT_API_OFFLINE=1.
 * Anything else is a local HTML file (inspect-source.ts). A few pages load at a time; pages print in argument order.
 *
 * An argument that cannot be inspected prints an error in its place (with `--json`, `{"input", "error": {"code",
 * "message"}}`) and the others still print. Exit status: 0 when every page was inspected, 1 when any failed (and,
 * as commander exits, for a usage error). Progress (one log line per page when there are several) goes to stderr
 * with the other logs.
 */
import { InvalidArgumentError, type Command } from 'commander';
import type { Config } from '../../config.ts';
import type { Analysis } from '../../engine/analysis/analysis.ts';
import type { Logger } from '../../logger.ts';
import type { PageFetcher } from '../../providers/types.ts';
import { printJson, type CliIo } from '../output.ts';
import { formatFailure, formatPage } from './inspect-format.ts';
import { DEFAULT_TOP, inspectPage, type InspectedPage, type InspectOptions } from './inspect-page.ts';
import { InspectFailure, isUrlArgument, loadFile, loadUrl, type LoadedPage } from './inspect-source.ts';

/** Pages loaded at once: fetches overlap, while analysis (CPU) runs one page at a time in argument order. */
const LOADS_IN_FLIGHT = 4;
/** `--top` at most: the competitor model keeps 100 names per page. */
const MAX_TOP = 100;

interface InspectCommandOptions {
  json?: boolean;
  language?: string;
  top: number;
}

type Outcome = { input: string; page: InspectedPage } | { input: string; error: InspectFailure };

function top(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || n < 1 || n > MAX_TOP) throw new InvalidArgumentError(`expected 1 to ${MAX_TOP}`);
  return n;
}

function languageTag(v: string): string {
  if (!/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(v.trim()))
    throw new InvalidArgumentError('expected a language code such as en, de or en-GB');
  return v.trim();
}

/** Runs `work` on every item, at most `limit` at once, and hands the results to `emit` in the items' order. */
async function inOrder<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
  emit: (result: R, index: number) => void,
): Promise<void> {
  const pending: Promise<R>[] = [];
  let next = 0;
  const start = () => {
    if (next < items.length) pending.push(work(items[next++]!));
  };
  for (let k = 0; k < limit; k++) start();
  for (let i = 0; i < items.length; i++) {
    const result = await pending[i]!;
    start();
    emit(result, i);
  }
}

const asFailure = (err: unknown) =>
  err instanceof InspectFailure
    ? err
    : new InspectFailure('analysis_failed', err instanceof Error ? err.message : String(err));

/** Loads one argument; never rejects. */
async function load(input: string, fetcher: PageFetcher | null): Promise<LoadedPage | InspectFailure> {
  try {
    return isUrlArgument(input) ? await loadUrl(input, fetcher!) : await loadFile(input);
  } catch (err) {
    return asFailure(err);
  }
}

function analyse(
  input: string,
  loaded: LoadedPage | InspectFailure,
  analysis: Analysis,
  options: InspectOptions,
): Outcome {
  if (loaded instanceof InspectFailure) return { input, error: loaded };
  try {
    return { input, page: inspectPage(loaded, analysis, options) };
  } catch (err) {
    return { input, error: asFailure(err) };
  }
}

function print(io: CliIo, outcome: Outcome, json: boolean): void {
  if ('page' in outcome) {
    if (json) printJson(io, outcome.page);
    else for (const line of formatPage(outcome.page)) io.out(line);
    return;
  }
  const error = { code: outcome.error.code, message: outcome.error.message };
  if (json) printJson(io, { input: outcome.input, error });
  else for (const line of formatFailure(outcome.input, error)) io.out(line);
}

function logProgress(logger: Logger, outcome: Outcome, done: number, total: number): void {
  const ok = 'page' in outcome;
  logger.info(
    { inspect: { done, total, input: outcome.input, ok, ...(ok ? {} : { code: outcome.error.code }) } },
    `inspected ${done} of ${total} pages${ok ? '' : ` (${outcome.input} failed: ${outcome.error.code})`}`,
  );
}

/** Inspects every input, printing each as it is done; resolves with how many failed. */
export async function runInspect(
  inputs: readonly string[],
  options: { json: boolean } & InspectOptions,
  deps: { config: Config; io: CliIo; logger: Logger },
): Promise<number> {
  // Loaded here, not with the command list: --help and the other commands need neither the providers nor the model.
  const [{ buildProviders }, { createAnalysis }, { systemClock }] = await Promise.all([
    import('../../compose.ts'),
    import('../../engine/analysis/analysis.ts'),
    import('../../clock.ts'),
  ]);
  // Only when a URL is given: the providers open the web archive (building its index the first time).
  const built = inputs.some(isUrlArgument)
    ? buildProviders(deps.config, { clock: systemClock, logger: deps.logger })
    : null;
  const analysis = createAnalysis();
  let failed = 0;
  try {
    await inOrder(
      inputs,
      LOADS_IN_FLIGHT,
      (input) => load(input, built?.providers.fetcher ?? null),
      (loaded, i) => {
        const outcome = analyse(inputs[i]!, loaded, analysis, options);
        if ('error' in outcome) failed++;
        print(deps.io, outcome, options.json);
        if (inputs.length > 1) logProgress(deps.logger, outcome, i + 1, inputs.length);
      },
    );
  } finally {
    await built?.close();
  }
  return failed;
}

/** Registers `inspect` on the program. */
export function registerInspectCommand(program: Command, config: Config, io: CliIo): void {
  program
    .command('inspect')
    .description(
      'print what the service understands of pages: type, language, title, headings, main text and the terms it would extract',
    )
    .argument('<inputs...>', 'http(s):// URLs (fetched as the server fetches them) or local HTML files (.html.gz too)')
    .option('--json', 'one JSON object per page, one per line (main text complete)')
    .option('--language <code>', "analyse the terms in this language instead of the page's own", languageTag)
    .option('--top <n>', `terms and names listed per page, 1-${MAX_TOP}`, top, DEFAULT_TOP)
    .addHelpText(
      'after',
      '\nExit status: 0 when every page was inspected; 1 when any argument failed (its error is printed in its place,\nthe other pages still print), and for a usage error (nothing on stdout). With AGENT_API_OFFLINE=1 URLs come\nfrom the web archive only.',
    )
    .action(async (inputs: string[], opts: InspectCommandOptions) => {
      const { createLogger } = await import('../../logger.ts');
      const logger = createLogger(config.AGENT_API_LOG_LEVEL);
      const failed = await runInspect(
        inputs,
        {
          json: opts.json === true,
          top: opts.top,
          ...(opts.language !== undefined ? { language: opts.language } : {}),
        },
        { config, io, logger },
      );
      if (failed > 0) process.exitCode = 1;
    });
}
