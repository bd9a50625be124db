/** Relevance ranking for tool search: tokenizer, BM25F fields, and the tool/server search built on them. */
export { ToolSearch, type RankedTool, type SearchableServer, type SearchableTool } from './tool-search.js';
export { closestNames, foldedAlike } from './closest-names.js';
export { identifierTokens, splitWords, stem, textTokens } from './tokenize.js';
export { embeddingText } from './documents.js';
export { VectorStore, type EmbedFunction, type SemanticSearchOptions } from './vector-store.js';
export { vectorWeightOf } from './vector-weight.js';
