/** The console's pages, each registering its routes with the kit (kit.ts). */
import type { Hono } from 'hono';
import type { HttpEnv } from '../../guards.ts';
import type { ConsoleKit } from '../kit.ts';
import { usagePages } from './usage.ts';
import { optimizationPages } from './optimizations.ts';
import { contentPages } from './content.ts';
import { prospectPages } from './prospects.ts';
import { trackerPages } from './tracker.ts';

export const PAGES: readonly ((app: Hono<HttpEnv>, kit: ConsoleKit) => void)[] = [
  usagePages,
  optimizationPages,
  contentPages,
  prospectPages,
  trackerPages,
];
