import type { AnyOperation } from './define.ts';
import { getUsage } from './usage/get-usage.ts';
import { estimateUsage } from './usage/estimate-usage.ts';
import { listClients } from './clients/list-clients.ts';
import { startOptimization } from './optimize/start-optimization.ts';
import { getOptimization } from './optimize/get-optimization.ts';
import { listOptimizations } from './optimize/list-optimizations.ts';

/** Every operation the service exposes, in documentation order. REST routes, MCP tools and OpenAPI come from here. */
export const OPERATIONS: readonly AnyOperation[] = [
  startOptimization,
  getOptimization,
  listOptimizations,
  getUsage,
  estimateUsage,
  listClients,
];
