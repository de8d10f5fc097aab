/** Bench baseline: a minimal SDK v2 server over stdio (`serveStdio`, both eras) with the one constant tool. */
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { minimalServer } from './minimal-mcp-tool.ts';

serveStdio(() => minimalServer());
