import type {
  AnswerEngine,
  AnswerPlatform,
  PageFetcher,
  ResearchPlatform,
  SearchProvider,
  Writer,
} from '../providers/types.ts';

/** The outside world as the engine sees it; the composition root builds it from configuration. */
export interface EngineProviders {
  /** Page fetches: the web archive first, then (unless offline) the SSRF-safe live fetcher. */
  fetcher: PageFetcher;
  /** The provider serving a research platform; throws ApiError `invalid_input` naming the setting when none does. */
  researchProvider(platform: ResearchPlatform): SearchProvider;
  /** The configured language model, or null for the offline extractive writer. */
  writer: Writer | null;
  /** Answer engines by tracker platform; a platform without one is missing coverage, never zero. */
  answerEngines: Partial<Record<AnswerPlatform, AnswerEngine>>;
  /** The synchronous URL check of the SSRF-safe fetcher (no DNS, no I/O), for validation at request time. */
  checkUrl(url: string): { ok: true; url: URL } | { ok: false; reason: string };
}
