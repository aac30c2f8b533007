/** The endpoint's one error class. */

/**
 * Thrown (as a rejection of `startTrackingEndpoint`) when the endpoint cannot start: a bad
 * option, a port in use, a data file that cannot be opened or is in use by another endpoint.
 * The message says what to do.
 */
export class TrackingEndpointError extends Error {
  override readonly name = 'TrackingEndpointError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
