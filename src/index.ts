/**
 * botbuilder-conversation-analytics: the public surface. Re-exports only.
 */
export * from './spec/index.js';
export * from './client/index.js';
export * from './botbuilder/index.js';
