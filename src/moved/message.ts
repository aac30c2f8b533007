/** What the old endpoint subpath and the old command say: where the endpoint went, and what to run. */

/** The endpoint package's name (and its command's). */
export const ENDPOINT_PACKAGE = 'botbuilder-conversation-analytics-endpoint';

/** Thrown by `import 'botbuilder-conversation-analytics/endpoint'`. */
export const ENDPOINT_MOVED =
  `botbuilder-conversation-analytics/endpoint moved to its own package. Install it with ` +
  `\`npm install ${ENDPOINT_PACKAGE}\` and import from '${ENDPOINT_PACKAGE}' instead ` +
  `(same exports: startTrackingEndpoint, TrackingEndpointError, …). A bot needs only ` +
  `botbuilder-conversation-analytics; the endpoint is for whoever runs the tracking service.`;

/** Printed by the old `botbuilder-conversation-analytics` command, with the arguments it was given. */
export function movedCommandMessage(args: readonly string[]): string {
  const quoted = args.map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`));
  return [
    `The tracking endpoint's commands (serve, transcript, import) moved to the package ${ENDPOINT_PACKAGE}.`,
    `Run instead:  npx ${ENDPOINT_PACKAGE} ${quoted.join(' ')}`.trimEnd(),
    `or install it: npm install ${ENDPOINT_PACKAGE}`,
  ].join('\n');
}
