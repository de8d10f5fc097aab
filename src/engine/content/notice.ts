/**
 * What the offline writer's output is, said wherever its output is shown: the artifacts, the MCP tool descriptions
 * and the docs. The extractive writer writes no prose of its own; it quotes the researched pages.
 */
export const EXTRACTIVE_NOTICE =
  'quoted research draft: sentences are quoted from the listed sources; rewrite before publishing';

/** The notice for a writer's output, or null for a model writer (its prose is its own). */
export const writerNotice = (writer: string | null): string | null =>
  writer === 'extractive' ? EXTRACTIVE_NOTICE : null;
