/**
 * What a user of 0.1 meets after the endpoint became its own package: the old subpath throws at
 * import and the old command prints, each saying exactly what to install and what to run.
 */
import { describe, expect, it } from 'vitest';
import { ENDPOINT_MOVED, ENDPOINT_PACKAGE, movedCommandMessage } from '../../src/moved/message.js';

describe('the old botbuilder-conversation-analytics/endpoint subpath', () => {
  it('throws at import, naming the package to install and the import to write instead', async () => {
    await expect(import('../../src/moved/endpoint.js')).rejects.toThrow(ENDPOINT_MOVED);
    expect(ENDPOINT_MOVED).toBe(
      'botbuilder-conversation-analytics/endpoint moved to its own package. Install it with ' +
        "`npm install botbuilder-conversation-analytics-endpoint` and import from 'botbuilder-conversation-analytics-endpoint' instead " +
        '(same exports: startTrackingEndpoint, TrackingEndpointError, …). A bot needs only ' +
        'botbuilder-conversation-analytics; the endpoint is for whoever runs the tracking service.',
    );
    expect(ENDPOINT_PACKAGE).toBe('botbuilder-conversation-analytics-endpoint');
  });
});

describe('the old botbuilder-conversation-analytics command', () => {
  it('gives the same command line under the new package, arguments kept', () => {
    expect(movedCommandMessage(['serve', '--key', 'pizza=sk_1', '--port', '3979'])).toBe(
      [
        "The tracking endpoint's commands (serve, transcript, import) moved to the package botbuilder-conversation-analytics-endpoint.",
        'Run instead:  npx botbuilder-conversation-analytics-endpoint serve --key pizza=sk_1 --port 3979',
        'or install it: npm install botbuilder-conversation-analytics-endpoint',
      ].join('\n'),
    );
  });

  it('quotes an argument the shell would split or expand, so the line can be pasted as it is', () => {
    const line = movedCommandMessage(['import', 'my file.csv', "it's", '$HOME', '--map', 'text=body,userId=id']).split('\n')[1];
    expect(line).toBe(`Run instead:  npx botbuilder-conversation-analytics-endpoint import 'my file.csv' 'it'\\''s' '$HOME' --map text=body,userId=id`);
  });

  it('without arguments, says the command alone', () => {
    expect(movedCommandMessage([]).split('\n')[1]).toBe('Run instead:  npx botbuilder-conversation-analytics-endpoint');
  });
});
