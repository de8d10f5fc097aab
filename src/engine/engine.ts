import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { Db, DbStats } from '../store/db.ts';
import { createIdempotencyService } from './idempotency.ts';
import { createRateLimiter, type RequestLimiter } from './rate-limit.ts';
import { createUsageService } from './usage.ts';
import { createRunner, type WakeChannel } from './runner/runner.ts';
import { createChangeHub } from './changes.ts';
import type { EngineProviders } from './providers.ts';
import { createAnalysis } from './analysis/analysis.ts';
import { PIPELINES } from './pipelines.ts';
import { createMetrics } from './metrics.ts';
import { createProviderLimits, type ProviderKind } from './provider-limits.ts';
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
 * The engine: the services every operation and pipeline share. Built once by the composition root from its
 * collaborators; holds no global state.
 */
export function createEngine(deps: EngineDeps) {
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
  const services = {
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
  const engine = { db, ...services, services };
  for (const make of PIPELINES) for (const pipeline of [make(engine)].flat()) runner.register(pipeline);
  return engine;
}

export type Engine = ReturnType<typeof createEngine>;
/** The engine without its root connection: handlers reach the database only through the handle they are given. */
export type EngineServices = Engine['services'];
