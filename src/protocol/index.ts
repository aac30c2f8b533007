/**
 * The tracking API's contract: record types, validation, platform values, the version rule, URL
 * building, the names of secrets and what an idempotency key may be. Imports nothing of ours. This file is also the package's
 * `botbuilder-conversation-analytics/protocol` entry, which the endpoint package uses (its surface is
 * pinned by api/protocol.api.md); the schema combinators behind `validate()` stay internal.
 */
export type * from './types.js';
export { check, isPlainObject, type Schema, type ValidationIssue } from './schema.js';
export { genericSchema, schemaFor, validate, type ValidateOptions } from './schemas.js';
export {
  API_VERSIONS,
  DEFAULT_PLATFORM_NAMES,
  DEFAULT_VERSION,
  PLATFORM_KINDS,
  RECORD_TYPES,
  UNIVERSAL_VERSION,
  checkApiKey,
  defaultEventPlatform,
  isApiVersion,
  isPlaceholder,
  platformKind,
  platformValue,
  trackUrl,
  versionFor,
  type PlatformNames,
  type TrackQuery,
} from './platforms.js';
export { SECRET_KEY, SECRET_PARAMETERS, SECRET_URL_PARAMETER } from './secrets.js';
export { MAX_IDEMPOTENCY_KEY, isIdempotencyKey } from './idempotency.js';
