import { z } from 'zod';
import type { TimeSource } from '../clock.ts';
import type { JsonClientOptions } from './http/json-client.ts';
import type { AnswerEngine, ResearchPlatform, SearchProvider, Writer } from './types.ts';

/**
 * A provider is defined once: what it is (`kind`, `name`), the environment variables it adds to the configuration
 * (`env`, with their defaults), the settings it reads from the parsed configuration (a zod schema that parses only
 * when the provider is configured), and how to build it. `createProviderRegistry` and `src/config.ts` walk the list
 * in `providers/definitions/index.ts`; nothing else names a provider. docs/extending.md has the recipe.
 */

/** What a provider is for, and the setting that chooses it (answer engines are not chosen: every configured one runs). */
export const PROVIDER_KINDS = {
  /** A search API for research platforms, chosen by SERP_PROVIDER. */
  serp: 'SERP_PROVIDER',
  /** The language model that writes, chosen by LLM_PROVIDER. */
  writer: 'LLM_PROVIDER',
  /** An AI answer engine for one tracker platform, built whenever its settings are present. */
  answer: null,
} as const;
export type ProviderKind = keyof typeof PROVIDER_KINDS;

/** What `create` answers for each kind (a writer may be null: the extractive writer is built by the engine). */
export interface ProviderInstances {
  serp: SearchProvider;
  writer: Writer | null;
  answer: AnswerEngine;
}

/** What every provider is built with. */
export interface ProviderBuildDeps {
  /** HTTP tuning for the adapter's JSON client, PROVIDER_TIMEOUT_MS included. */
  http: Omit<JsonClientOptions, 'provider' | 'baseUrl' | 'headers'>;
  clock: TimeSource;
  /** The offline search over the web archive (the `archive` SERP provider). */
  archiveSearch: SearchProvider;
}

/**
 * Environment variables as `src/config.ts` parses them: each key's zod schema, with its default. A bad value fails
 * startup with the variable's name, whichever provider is chosen.
 */
export type ProviderEnv = Readonly<Record<string, z.ZodType>>;

interface ProviderSpec<K extends ProviderKind, N extends string, Env extends ProviderEnv, Schema extends z.ZodType> {
  kind: K;
  /** The value of the kind's setting that chooses it (SERP_PROVIDER=serpapi); for answer engines, the tracker platform. */
  name: N;
  /**
   * The environment variables it adds to the configuration, `{}` when none. Providers of one vendor that read the
   * same keys share one object (src/config.ts refuses a key declared twice differently). An adapter that calls an API
   * takes its base URL from a `<VENDOR>_BASE_URL` key here: tests point it at its fake there.
   */
  env: Env;
  /**
   * What it reads from the parsed configuration; a parse failure means "not configured" (a key is missing). It may
   * read only keys of `env`, so the compiler stops a setting that is read but never parsed from the environment.
   */
  settings: Schema;
  /** The settings a caller must set to enable it, for error messages; empty when it needs none. */
  needs: readonly string[];
  /** Said in brackets after `needs` in the startup error (the OpenAI writer: a keyless OpenAI-compatible server). */
  hint?: string;
  /**
   * Startup problems, in place of the default one (`SERP_PROVIDER=serpapi needs SERPAPI_API_KEY` when it is chosen
   * and its settings do not parse). It sees its own settings unparsed, and whether its kind's setting names it.
   */
  check?: (input: z.input<Schema>, chosen: boolean) => string[];
  /** SERP providers: the research platforms it answers. Answer engines: true when the platform is a research one too. */
  research?: K extends 'serp' ? readonly ResearchPlatform[] : K extends 'answer' ? boolean : never;
  create: (settings: z.output<Schema>, deps: ProviderBuildDeps) => ProviderInstances[K];
}

/** A provider as the registry sees it: its settings parsed and checked through `build` and `problems`. */
export interface ProviderDefinition<
  K extends ProviderKind = ProviderKind,
  Input = unknown,
  N extends string = string,
  Env extends ProviderEnv = ProviderEnv,
> {
  readonly kind: K;
  readonly name: N;
  /** The environment variables `src/config.ts` parses for it, with their defaults. */
  readonly env: Env;
  readonly needs: readonly string[];
  /** SERP providers: the research platforms they answer; answer engines: their own platform when it is one. */
  readonly research: readonly ResearchPlatform[];
  /** The provider, or null when its settings are absent. */
  build(config: Input, deps: ProviderBuildDeps): ProviderInstances[K] | null;
  /** Startup problems: a chosen provider without its settings, or settings that contradict each other. */
  problems(config: Input, chosen: boolean): string[];
}

/** Any one definition, told apart by `kind`, for lists that read configuration of type `Input`. */
export type AnyProviderDefinition<Input> = { [K in ProviderKind]: ProviderDefinition<K, Input> }[ProviderKind];

/**
 * Resolves to `unknown` when the settings read only keys that `env` parses, so the configuration holds them; else to
 * a type `settings` cannot meet, naming the keys that are read but not declared.
 */
type ReadsOnlyEnv<Env extends ProviderEnv, Schema extends z.ZodType> = [z.output<z.ZodObject<Env>>] extends [
  z.input<Schema>,
]
  ? unknown
  : { settings: { 'reads keys its env does not declare': Exclude<keyof z.input<Schema>, keyof Env> } };

/** Defines one provider; list the result in `providers/definitions/index.ts`. */
export function defineProvider<
  K extends ProviderKind,
  N extends string,
  Env extends ProviderEnv,
  Schema extends z.ZodType,
>(spec: ProviderSpec<K, N, Env, Schema> & ReadsOnlyEnv<Env, Schema>): ProviderDefinition<K, z.input<Schema>, N, Env> {
  const selector = PROVIDER_KINDS[spec.kind];
  const research: readonly ResearchPlatform[] = Array.isArray(spec.research)
    ? spec.research
    : spec.research === true
      ? [spec.name as ResearchPlatform]
      : [];
  return {
    kind: spec.kind,
    name: spec.name,
    env: spec.env,
    needs: spec.needs,
    research,
    build(config, deps) {
      const parsed = spec.settings.safeParse(config);
      return parsed.success ? spec.create(parsed.data, deps) : null;
    },
    problems(config, chosen) {
      if (spec.check) return spec.check(config, chosen);
      if (!chosen || selector === null || spec.settings.safeParse(config).success) return [];
      const hint = spec.hint ? ` (${spec.hint})` : '';
      return [`${selector}=${spec.name} needs ${spec.needs.join(' and ')}${hint}`];
    },
  };
}

/** The settings of a provider that reads none (always configured). */
export const noSettings = () => z.looseObject({});

/** A setting that must be present: a string that is not blank (kept as written). */
export const required = () =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (present(v)) return v;
      ctx.addIssue({ code: 'custom', message: 'not set' });
      return z.NEVER;
    });

export const present = (v: string | undefined): v is string => typeof v === 'string' && v.trim() !== '';

/** Whether a base URL is OpenAI's own API (which needs a key), not a compatible server. */
export function isOpenAiHost(baseUrl: string): boolean {
  try {
    return new URL(baseUrl).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/** The configuration keys a list of definitions reads, as one object type (`noSettings()`, which reads none, adds none). */
export type ProviderSettingsOf<D> = UnionToIntersection<
  D extends { build(config: infer Input, deps: ProviderBuildDeps): unknown }
    ? string extends keyof Input
      ? never
      : Input
    : never
>;

/**
 * The environment variables a list of definitions adds to the configuration, as one zod shape type (a key several
 * definitions declare appears once).
 */
export type ProviderEnvOf<D> = UnionToIntersection<D extends { readonly env: infer E } ? E : never>;

/** The values of a kind's setting (SERP_PROVIDER, LLM_PROVIDER) a list of definitions accepts: their names. */
export type ProviderNameOf<D, K extends ProviderKind> = D extends {
  readonly kind: K;
  readonly name: infer N extends string;
}
  ? N
  : never;
