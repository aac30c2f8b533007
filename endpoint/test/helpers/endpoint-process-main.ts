/** The endpoint process of endpoint-process.ts: options as JSON in argv[2]; URL on stdout; log on stderr. */
import { startTrackingEndpoint } from '../../src/index.js';

const endpoint = await startTrackingEndpoint({ ...JSON.parse(process.argv[2]), log: (line: string) => process.stderr.write(`${line}\n`) });
process.stdout.write(`${endpoint.url}\n`);
process.once('SIGTERM', () => {
  void endpoint.close().then(() => process.exit(0));
});
