/**
 * botbuilder-conversation-analytics: the public surface. Re-exports only.
 *
 * From the spec layer only what users need (record types, validation, platforms and the version
 * rule); its schema building blocks stay internal, shared with the local endpoint.
 */
export type * from './spec/types.js';
export type { ValidationIssue } from './spec/schema.js';
export { validate, type ValidateOptions } from './spec/schemas.js';
export {
  checkApiKey,
  defaultEventPlatform,
  DEFAULT_PLATFORM_NAMES,
  DEFAULT_VERSION,
  isPlaceholder,
  PLATFORM_KINDS,
  platformKind,
  platformValue,
  RECORD_TYPES,
  trackUrl,
  UNIVERSAL_VERSION,
  versionFor,
  type PlatformNames,
  type TrackQuery,
} from './spec/platforms.js';
export * from './client/index.js';
export * from './botbuilder/index.js';
