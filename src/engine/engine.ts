import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { Db, DbStats } from '../store/db.ts';
import { createIdempotencyService, type IdempotencyService } from './platform/idempotency.ts';
import { createRateLimiter, type RequestLimiter } from './platform/rate-limit.ts';
import { createUsageService, type UsageService } from './platform/usage.ts';
import { createRunner, type Runner, type WakeChannel } from './runner/runner.ts';
import { type ChangeHub, createChangeHub } from './platform/changes.ts';
import type { EngineProviders } from './providers.ts';
import { type Analysis, createAnalysis } from './analysis/analysis.ts';
import { PIPELINES } from './pipelines.ts';
import { type Metrics, createMetrics } from './platform/metrics.ts';
import { createProviderLimits, type ProviderKind, type ProviderLimits } from './platform/provider-limits.ts';
import type { ProviderSlots } from '../store/provider-slots.ts';

export interface EngineSettings {
  runnerConcurrency: number;
  leaseMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  pollMs: number;
  queueMaxDepth: number;
  idempotencyTtlMs: number;
  concurrency: Record<ProviderKind, number>;
  /** Installation-wide caps per provider kind (PostgreSQL); 0: none. */
  globalConcurrency?: Partial<Record<ProviderKind, number>>;
}

export interface EngineDeps {
  db: Db;
  dbStats: DbStats;
  clock: Clock;
  logger: Logger;
  settings: EngineSettings;
  providers: EngineProviders;
  /** Lease owner name for the runner (tests name their workers). */
  runnerOwner?: string;
  /** The per-key request limiter, when the process made one before the engine (stdio meters its first messages). */
  rateLimiter?: RequestLimiter;
  /** New-work announcements between processes sharing the store (PostgreSQL); absent: this process only. */
  wake?: WakeChannel;
  /** Installation-wide provider slots (PostgreSQL), for the global caps in settings. */
  providerSlots?: ProviderSlots;
}

/**
 * The services every operation handler and pipeline step gets: everything of the engine but the root connection, so
 * a handler reaches the database only through the handle it is given (the SQLite self-deadlock cannot be written).
 */
export interface EngineServices {
  dbStats: DbStats;
  clock: Clock;
  logger: Logger;
  settings: EngineSettings;
  /** Pooled usage windows: reserve on acceptance, charge once, release on failure. */
  usage: UsageService;
  /** One result per idempotency key. */
  idempotency: IdempotencyService;
  /** Requests per key. */
  rateLimiter: RequestLimiter;
  /** The durable job runner the pipelines are registered on. */
  runner: Runner;
  /** Concurrency caps per provider kind (in the process, and installation-wide on PostgreSQL). */
  limits: ProviderLimits;
  /** Change notifications for the console and MCP resource subscriptions. */
  changes: ChangeHub;
  metrics: Metrics;
  providers: EngineProviders;
  /** Text analysis: extraction, terms, scoring. */
  analysis: Analysis;
}

/** The engine: its services, and the root connection the composition root and the pipelines' runner use. */
export interface Engine extends EngineServices {
  db: Db;
  services: EngineServices;
}

/**
 * The engine: the services every operation and pipeline share. Built once by the composition root from its
 * collaborators; holds no global state.
 */
export function createEngine(deps: EngineDeps): Engine {
  const { db, clock, logger, settings } = deps;
  const metrics = createMetrics();
  const usage = createUsageService({ clock, logger, metrics });
  const idempotency = createIdempotencyService({ clock, ttlMs: settings.idempotencyTtlMs });
  const changes = createChangeHub(clock);
  const rateLimiter = deps.rateLimiter ?? createRateLimiter(clock);
  const runner = createRunner({
    db,
    clock,
    logger,
    concurrency: settings.runnerConcurrency,
    leaseMs: settings.leaseMs,
    retryBaseMs: settings.retryBaseMs,
    pollMs: settings.pollMs,
    owner: deps.runnerOwner,
    onChange: changes.emit,
    wake: deps.wake,
    metrics,
  });
  const limits = createProviderLimits(
    { concurrency: settings.concurrency, global: settings.globalConcurrency },
    deps.providerSlots ?? null,
    metrics,
  );
  const analysis = createAnalysis();
  /** Everything but the root connection: what operation handlers get (engine/README in docs/architecture.md). */
  const services: EngineServices = {
    dbStats: deps.dbStats,
    clock,
    logger,
    settings,
    usage,
    idempotency,
    rateLimiter,
    runner,
    limits,
    changes,
    metrics,
    providers: deps.providers,
    analysis,
  };
  const engine: Engine = { db, ...services, services };
  for (const make of PIPELINES) for (const pipeline of [make(engine)].flat()) runner.register(pipeline);
  return engine;
}
