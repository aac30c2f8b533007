/**
 * Shared set-up of the botbuilder tests: a real tracking sink, a real client pointed at it, the
 * middleware, and a TestAdapter running a bot through it.
 */
import { expect } from 'vitest';
import { TestAdapter, type Activity, type TurnContext } from 'botbuilder';
import { TrackingClient, type TrackingClientOptions, type TrackingError } from '../../src/client/index.js';
import { TrackingMiddleware, type TrackingMiddlewareOptions } from '../../src/middleware/index.js';
import { startSink, type Sink } from '../helpers/sink.js';

/** A record as the sink received it. */
export interface Received {
  platform: string;
  v: string;
  type: string;
  apiKey: string;
  body: any;
}

export interface Harness {
  sink: Sink;
  client: TrackingClient;
  /** Errors the client reported through onError. */
  errors: TrackingError[];
  /** Flushes the client and returns every record received so far. */
  records(): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startHarness(clientOptions: Partial<TrackingClientOptions> = {}): Promise<Harness> {
  const sink = await startSink(() => ({ body: '{}' }));
  const errors: TrackingError[] = [];
  const client = new TrackingClient({ apiKey: 'test-key-123', baseUrl: sink.url, logger: false, onError: (e) => errors.push(e), ...clientOptions });
  return {
    sink,
    client,
    errors,
    async records() {
      await client.flush();
      return sink.requests.map((r) => ({ platform: r.query.platform, v: r.query.v, type: r.query.type, apiKey: r.query.apiKey, body: r.body }));
    },
    async close() {
      await client.close(1000);
      await sink.close();
    },
  };
}

/** A time a record was dated with (an activity's own, or when it was sent or tracked): an ISO 8601 instant. */
export const A_TIME = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

/** An event's `extraInfo` (or a revenue event's `metadata`) as recorded: `info` plus the time the event was dated with. */
export function timed(info: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...info, timestamp: A_TIME };
}

export type Bot = (context: TurnContext) => Promise<void>;

/** A TestAdapter with the tracking middleware in front of `bot`. */
export function adapterWith(harness: Harness, bot: Bot, options: TrackingMiddlewareOptions = {}): TestAdapter {
  const adapter = new TestAdapter(bot);
  adapter.use(new TrackingMiddleware({ client: harness.client, ...options }));
  return adapter;
}

/** A user message on a channel, from `user-1` to `bot-1`. */
export function userMessage(fields: Partial<Activity> = {}): Partial<Activity> {
  return {
    type: 'message',
    channelId: 'webchat',
    from: { id: 'user-1', name: 'Ada' },
    recipient: { id: 'bot-1', name: 'Shop bot' },
    conversation: { id: 'conv-1' } as Activity['conversation'],
    serviceUrl: 'https://channel.example/',
    text: 'hello',
    ...fields,
  };
}

/** Runs one activity through the adapter's pipeline. */
export async function send(adapter: TestAdapter, activity: Partial<Activity>): Promise<void> {
  await adapter.processActivity(activity);
}
