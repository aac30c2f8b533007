/**
 * The exact requests our middleware sends for a list of turns (URL and JSON body), captured
 * through a transport that sends nothing. The bare `node:http` loop and the direct
 * `logIncoming` sender replay them, so every sender carries the same bodies.
 */
import type { Activity } from 'botbuilder';
import { TrackingMiddleware } from '../../src/middleware/index.js';
import { TrackingClient } from '../../src/client/index.js';
import type { TransportRequest } from '../../src/client/transport.js';
import { API_KEY, echoAdapter } from './bot.js';

/** One captured request. */
export interface CapturedRequest {
  url: string;
  body: string;
}

/** Runs `turns` through the echo bot with our middleware and returns the requests it would send, in order. */
export async function captureRequests(baseUrl: string, turns: Partial<Activity>[]): Promise<CapturedRequest[]> {
  const captured: CapturedRequest[] = [];
  const client = new TrackingClient({
    apiKey: API_KEY,
    baseUrl,
    logger: false,
    maxQueueSize: Math.max(10_000, 4 * turns.length),
    transport: {
      send(request: TransportRequest) {
        captured.push({ url: request.url, body: request.body });
        return Promise.resolve({ status: 200 });
      },
    },
  });
  const adapter = echoAdapter(new TrackingMiddleware(client));
  for (const turn of turns) await adapter.processActivity(turn);
  await client.close();
  return captured;
}
