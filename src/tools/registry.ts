import type { AnyOperation } from './define.ts';
import { getUsage } from './usage/get-usage.ts';
import { estimateUsage } from './usage/estimate-usage.ts';
import { listClients } from './clients/list-clients.ts';
import { createClient } from './clients/create-client.ts';
import { updateClient } from './clients/update-client.ts';
import { createContentJob } from './content/create-content-job.ts';
import { approveContentBrief } from './content/approve-content-brief.ts';
import { listContentJobs } from './content/list-content-jobs.ts';
import { getContentJob } from './content/get-content-job.ts';
import { getContentArtifacts } from './content/get-content-artifacts.ts';
import { createContentAutopilot } from './content/create-content-autopilot.ts';
import { getAutopilotStatus } from './content/get-autopilot-status.ts';
import { startOptimization } from './optimize/start-optimization.ts';
import { getOptimization } from './optimize/get-optimization.ts';
import { listOptimizations } from './optimize/list-optimizations.ts';
import { scoreContent } from './optimize/score-content.ts';
import { listProspectLists } from './prospects/list-prospect-lists.ts';
import { createProspectList } from './prospects/create-prospect-list.ts';
import { listProspects } from './prospects/list-prospects.ts';
import { saveProspect } from './prospects/save-prospect.ts';
import { updateProspect } from './prospects/update-prospect.ts';
import { deleteProspect } from './prospects/delete-prospect.ts';
import { deleteProspectList } from './prospects/delete-prospect-list.ts';
import { listTrackerProjects } from './tracker/list-tracker-projects.ts';
import { getTrackerProject } from './tracker/get-tracker-project.ts';
import { getTrackerResults } from './tracker/get-tracker-results.ts';
import { getTrackerTrends } from './tracker/get-tracker-trends.ts';
import { getTrackerSummary } from './tracker/get-tracker-summary.ts';
import { getBrandSummary } from './tracker/get-brand-summary.ts';
import { startTrackerScan } from './tracker/start-tracker-scan.ts';
import { createTrackerProject } from './tracker/create-tracker-project.ts';
import { updateTrackerProject } from './tracker/update-tracker-project.ts';
import { deleteTrackerProject } from './tracker/delete-tracker-project.ts';

/**
 * Every operation the service exposes, in documentation order. REST routes, MCP tools and OpenAPI come from here, and
 * so do the tool names tests use (test/contract/registry.test.ts keeps the one hand-written list, DOCUMENTED_TOOLS, to
 * guard the public names). Adding one: docs/extending.md.
 */
export const OPERATIONS: readonly AnyOperation[] = [
  createContentJob,
  approveContentBrief,
  listContentJobs,
  getContentJob,
  getContentArtifacts,
  createContentAutopilot,
  getAutopilotStatus,
  startOptimization,
  getOptimization,
  listOptimizations,
  scoreContent,
  getUsage,
  estimateUsage,
  listClients,
  createClient,
  updateClient,
  listTrackerProjects,
  getTrackerProject,
  createTrackerProject,
  updateTrackerProject,
  deleteTrackerProject,
  getTrackerResults,
  getTrackerTrends,
  getTrackerSummary,
  getBrandSummary,
  startTrackerScan,
  listProspectLists,
  createProspectList,
  listProspects,
  saveProspect,
  updateProspect,
  deleteProspect,
  deleteProspectList,
];
