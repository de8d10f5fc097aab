#!/usr/bin/env node
// Launcher: registers the tsx loader so the TypeScript sources run directly (no build step), then runs the CLI.
import { register } from 'tsx/esm/api';
register();
const { main } = await import('../src/cli/main.ts');
await main(process.argv.slice(2));
