/**
 * `botbuilder-conversation-analytics/endpoint` until 0.1: the tracking endpoint is now a package of
 * its own, `botbuilder-conversation-analytics-endpoint`, so that a bot installs the middleware
 * without the endpoint's database drivers. Importing this subpath fails at once with a message that
 * says what to install and what to import instead; it exports nothing.
 */
import { ENDPOINT_MOVED } from './message.js';

/**
 * Moved: `npm install botbuilder-conversation-analytics-endpoint`, then
 * `import { startTrackingEndpoint } from 'botbuilder-conversation-analytics-endpoint'`.
 * @deprecated The tracking endpoint is the package `botbuilder-conversation-analytics-endpoint`.
 */
export declare const startTrackingEndpoint: never;

throw new Error(ENDPOINT_MOVED);
