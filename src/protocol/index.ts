/** The tracking interface: record types, schemas, validation, platforms and the version rule. Imports nothing of ours. */
export * from './types.js';
export * from './schema.js';
export * from './schemas.js';
export * from './platforms.js';
export * from './secrets.js';
