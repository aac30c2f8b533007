import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TestAdapter, type Activity, type ResourceResponse } from 'botbuilder';
import { TrackingClient } from '../../src/client/index.js';
import { ReceiveMiddleware, SendMiddleware, TrackingMiddleware, setIntent, setOutgoingIntent, trackEvent } from '../../src/middleware/index.js';
import { adapterWith, send, startHarness, userMessage, type Harness } from './harness.js';

let h: Harness;
let unhandled: unknown[];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeEach(async () => {
  h = await startHarness();
  unhandled = [];
  process.on('unhandledRejection', onUnhandled);
});
afterEach(async () => {
  process.off('unhandledRejection', onUnhandled);
  await h.close();
});

/** Waits long enough for any stray rejection to be noticed. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe("the bot's errors", () => {
  it('propagate unchanged (the same error object) and the incoming message is still recorded', async () => {
    const boom = new Error('bot broke');
    const adapter = adapterWith(h, async (ctx) => {
      setIntent(ctx, 'Crashy');
      throw boom;
    });
    await expect(send(adapter, userMessage({ text: 'do it' }))).rejects.toBe(boom);
    const records = await h.records();
    expect(records).toHaveLength(1);
    expect(records[0].body).toMatchObject({ text: 'do it', userId: 'user-1', intent: { name: 'Crashy', inputs: [] } });
  });

  it('reach onTurnError unchanged, and the error reply is recorded after the incoming message', async () => {
    const boom = new TypeError('bad state');
    const seen: unknown[] = [];
    const adapter = adapterWith(h, async () => {
      throw boom;
    });
    adapter.onTurnError = async (ctx, error) => {
      seen.push(error);
      await ctx.sendActivity('Sorry, something went wrong.');
    };
    await send(adapter, userMessage());
    expect(seen).toEqual([boom]);
    expect(seen[0]).toBe(boom);
    expect((await h.records()).map((r) => [r.type, r.body.text])).toEqual([
      ['incoming', 'hello'],
      ['outgoing', 'Sorry, something went wrong.'],
    ]);
  });

  it('a failed send rejects unchanged and is not recorded as an outgoing message', async () => {
    const sendError = new Error('channel down');
    const adapter = adapterWith(h, async (ctx) => {
      await ctx.sendActivity('will fail');
    });
    adapter.use({
      onTurn: async (ctx, next) => {
        ctx.onSendActivities(async () => {
          throw sendError;
        });
        await next();
      },
    });
    await expect(send(adapter, userMessage())).rejects.toBe(sendError);
    expect((await h.records()).map((r) => r.type)).toEqual(['incoming']);
  });
});

describe('what the bot sees', () => {
  it('the ResourceResponses of a send come back unchanged', async () => {
    const fromChannel: ResourceResponse[] = [{ id: 'r-1' }, { id: 'r-2' }];
    let returned: ResourceResponse[] | undefined;
    const adapter = adapterWith(h, async (ctx) => {
      returned = await ctx.sendActivities([{ text: 'a' }, { text: 'b' }]);
    });
    adapter.use({
      onTurn: async (ctx, next) => {
        ctx.onSendActivities(async () => fromChannel);
        await next();
      },
    });
    await send(adapter, userMessage());
    expect(returned).toBe(fromChannel);
    expect(returned).toEqual([{ id: 'r-1' }, { id: 'r-2' }]);
  });

  it('the incoming activity is never changed', async () => {
    const activity = userMessage({ channelData: { postBack: true, nested: { token: 'x' } }, value: { a: 1 }, attachments: [{ contentType: 'image/png', contentUrl: 'https://img.example/a.png' }] });
    let before: unknown;
    const adapter = new TestAdapter(async (ctx) => void (await ctx.sendActivity('ok')));
    adapter.use({
      onTurn: async (ctx, next) => {
        before = structuredClone(ctx.activity);
        await next();
      },
    });
    adapter.use(new TrackingMiddleware(h.client));
    await send(adapter, activity);
    await h.records();
    expect(h.sink.requests).toHaveLength(2);
    expect(activity).toEqual(before);
    expect(activity.from).not.toHaveProperty('role');
  });

  it('the activities the bot sends are not changed', async () => {
    const adapter = adapterWith(h, async (ctx) => void (await ctx.sendActivity({ text: 'hi', suggestedActions: { to: [], actions: [{ type: 'imBack', title: 'A', value: 'a' }] } })));
    await send(adapter, userMessage());
    const sent = structuredClone(adapter.activeQueue[0]);
    await h.records();
    expect(adapter.activeQueue[0]).toEqual(sent);
  });
});

describe('tracking failures never reach the turn', () => {
  it('an endpoint that never answers does not hold the turn: the turn ends with its requests still unanswered', async () => {
    const unanswered: ServerResponse[] = [];
    const server = createServer((req, res) => {
      req.resume();
      unanswered.push(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const silent = await startHarness({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    try {
      const adapter = adapterWith(silent, async (ctx) => void (await ctx.sendActivity('still works')));
      await send(adapter, userMessage());
      // The turn is over, and no request has had an answer: it cannot have waited for one.
      expect(adapter.activeQueue.map((a) => a.text)).toEqual(['still works']);
      expect(unanswered.filter((res) => res.headersSent)).toEqual([]);
    } finally {
      server.on('request', (_req, res: ServerResponse) => res.end('{}'));
      for (const res of unanswered) res.end('{}');
      await silent.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('an endpoint that is down does not break the turn, and is reported', async () => {
    const down = await startHarness({ baseUrl: 'http://127.0.0.1:9', maxAttempts: 1 });
    try {
      const adapter = adapterWith(down, async (ctx) => void (await ctx.sendActivity('still works')));
      await send(adapter, userMessage());
      expect(adapter.activeQueue.map((a) => a.text)).toEqual(['still works']);
      await down.client.flush();
      await settle();
      expect(down.errors.map((e) => (e as { reason?: string }).reason)).toEqual(['retries-exhausted', 'retries-exhausted']);
      expect(unhandled).toEqual([]);
    } finally {
      await down.close();
    }
  });

  it('an invalid record (no user id) is reported through the client and the turn goes on', async () => {
    const adapter = adapterWith(h, async (ctx) => void (await ctx.sendActivity('ok')));
    await send(adapter, userMessage({ from: { id: '', name: 'nobody' } }));
    await h.records();
    await settle();
    expect(h.errors.some((e) => e.name === 'TrackingValidationError' && e.message.includes('userId'))).toBe(true);
    expect(adapter.activeQueue.map((a) => a.text)).toEqual(['ok']);
    expect(unhandled).toEqual([]);
  });

  it('a channel mapping that throws is reported through the client and the turn goes on', async () => {
    const adapter = adapterWith(h, async (ctx) => void (await ctx.sendActivity('ok')), {
      platformForChannel: () => {
        throw new Error('mapping exploded');
      },
    });
    await send(adapter, userMessage());
    await h.records();
    expect(h.errors.length).toBe(2);
    expect(h.errors[0].message).toContain('mapping exploded');
    expect(adapter.activeQueue.map((a) => a.text)).toEqual(['ok']);
  });

  it('a card whose content has a throwing getter still gives both records, with what could be read of the card, and no error', async () => {
    // The fault suite's hostile value: an enumerable getter that throws whenever it is read.
    const content = Object.defineProperty({ type: 'AdaptiveCard', body: [{ type: 'TextBlock', text: 'Pick one' }], actions: [{ type: 'Action.Submit', title: 'A', data: { pick: 'a' } }] }, 'boom', {
      enumerable: true,
      get: () => {
        throw new Error('getter exploded');
      },
    });
    const card = { contentType: 'application/vnd.microsoft.card.adaptive', content };
    const adapter = adapterWith(h, async (ctx) => void (await ctx.sendActivity({ type: 'message', attachments: [card] })));
    await send(adapter, userMessage({ text: 'here', attachments: [card] }));
    const records = await h.records();
    expect(h.errors).toEqual([]);
    expect(records.map((r) => [r.type, r.body.text, r.body.buttons])).toEqual([
      ['incoming', 'here', [{ id: '{"pick":"a"}', label: 'A', value: '{"pick":"a"}' }]],
      ['outgoing', 'Pick one', [{ id: '{"pick":"a"}', label: 'A', value: '{"pick":"a"}' }]],
    ]);
    // platformJson keeps the card without the field that could not be read.
    expect(records[1].body.platformJson.attachments).toEqual([{ contentType: card.contentType, content: { type: 'AdaptiveCard', body: [{ type: 'TextBlock', text: 'Pick one' }], actions: [{ type: 'Action.Submit', title: 'A', data: { pick: 'a' } }] } }]);
  });

  it('a client that throws everywhere never throws into the turn and is reported to onError', async () => {
    const broken = Object.assign(Object.create(TrackingClient.prototype) as TrackingClient, {
      defer: () => {
        throw new Error('defer broke');
      },
      track: () => {
        throw new Error('track broke');
      },
    });
    const reported: unknown[] = [];
    const adapter = new TestAdapter(async (ctx) => {
      setIntent(ctx, 'X');
      trackEvent(ctx, { type: 'customEvent', name: 'e' });
      await ctx.sendActivity('fine');
    });
    adapter.use(new TrackingMiddleware({ client: broken, onError: (e) => reported.push(e) }));
    await adapter.send('hi').assertReply('fine').startTest();
    await settle();
    expect(reported.length).toBeGreaterThan(0);
    expect((reported[0] as Error).message).toBe('defer broke');
    expect(unhandled).toEqual([]);
  });

  it('a client whose promises reject never causes an unhandled rejection', async () => {
    const client = new TrackingClient({ apiKey: 'test-key-123', baseUrl: h.sink.url, logger: false, onError: () => undefined });
    const rejecting = Object.assign(Object.create(client) as TrackingClient, {
      track: () => Promise.reject(new Error('rejected')),
    });
    const adapter = new TestAdapter(async (ctx) => void (await ctx.sendActivity('fine')));
    adapter.use(new TrackingMiddleware({ client: rejecting }));
    await adapter.send('hi').assertReply('fine').startTest();
    await client.flush();
    await settle();
    expect(unhandled).toEqual([]);
    await client.close(100);
  });
});

describe('construction', () => {
  it('without a client or environment, the constructor throws a TrackingConfigError naming what to set', () => {
    const saved = { key: process.env.TRACKING_API_KEY, url: process.env.TRACKING_BASE_URL };
    delete process.env.TRACKING_API_KEY;
    delete process.env.TRACKING_BASE_URL;
    try {
      expect(() => new TrackingMiddleware()).toThrow(expect.objectContaining({ name: 'TrackingConfigError', message: expect.stringContaining('TRACKING_API_KEY') }));
    } finally {
      if (saved.key !== undefined) process.env.TRACKING_API_KEY = saved.key;
      if (saved.url !== undefined) process.env.TRACKING_BASE_URL = saved.url;
    }
  });

  it('builds its client from TRACKING_API_KEY and TRACKING_BASE_URL', async () => {
    const middleware = new TrackingMiddleware({ clientOptions: { env: { TRACKING_API_KEY: 'env-key-456', TRACKING_BASE_URL: h.sink.url }, logger: false } });
    const adapter = new TestAdapter(async () => undefined).use(middleware);
    await adapter.send('hi').startTest();
    await middleware.client.close(1000);
    expect(h.sink.requests.map((r) => r.query.apiKey)).toEqual(['env-key-456']);
  });
});

describe('ReceiveMiddleware and SendMiddleware', () => {
  it('ReceiveMiddleware alone records only incoming messages', async () => {
    const adapter = new TestAdapter(async (ctx) => void (await ctx.sendActivity('reply'))).use(new ReceiveMiddleware(h.client));
    await adapter.send('hi').startTest();
    expect((await h.records()).map((r) => r.type)).toEqual(['incoming']);
  });

  it('ReceiveMiddleware alone records the incoming message at the end of a turn in which the bot sends nothing, with its intent', async () => {
    const adapter = new TestAdapter(async (ctx) => void setIntent(ctx, 'Silent')).use(new ReceiveMiddleware(h.client));
    await adapter.send('hi').startTest();
    const records = await h.records();
    expect(records.map((r) => [r.type, r.body.text, r.body.intent])).toEqual([['incoming', 'hi', { name: 'Silent', inputs: [] }]]);
    expect(adapter.activeQueue).toEqual([]);
  });

  it('ReceiveMiddleware alone records the incoming message when the bot throws before replying, and the error propagates unchanged', async () => {
    const failure = new Error('bot broke');
    const adapter = new TestAdapter(async () => {
      throw failure;
    }).use(new ReceiveMiddleware(h.client));
    await expect(adapter.processActivity({ type: 'message', text: 'hi' })).rejects.toBe(failure);
    expect((await h.records()).map((r) => [r.type, r.body.text])).toEqual([['incoming', 'hi']]);
  });

  it('SendMiddleware alone records every message the bot sends, with its outgoing intent, and no incoming record', async () => {
    const adapter = new TestAdapter(async (ctx) => {
      setOutgoingIntent(ctx, 'Greet');
      await ctx.sendActivity('one');
      await ctx.sendActivities([{ type: 'typing' }, { type: 'message', text: 'two' }]);
    }).use(new SendMiddleware(h.client));
    await adapter.send('hi').startTest();
    expect((await h.records()).map((r) => [r.type, r.body.text, r.body.intent])).toEqual([
      ['outgoing', 'one', { name: 'Greet', inputs: [] }],
      ['outgoing', 'two', undefined],
    ]);
  });

  it('ReceiveMiddleware and SendMiddleware alone each make close() wait for a running turn, so its record is still delivered', async () => {
    for (const Middleware of [ReceiveMiddleware, SendMiddleware]) {
      const client = new TrackingClient({ apiKey: 'test-key-123', baseUrl: h.sink.url, logger: false });
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      const adapter = new TestAdapter(async (ctx) => {
        started();
        await gate;
        await ctx.sendActivity('late reply');
      }).use(new Middleware(client));
      const turn = adapter.processActivity({ type: 'message', text: 'slow question' });
      await running;
      const closing = client.close(5000);
      release();
      await turn;
      expect((await closing).stats).toMatchObject({ delivered: 1, dropped: 0 });
    }
    expect(h.sink.requests.map((r) => [r.query.type, r.body.text])).toEqual([['incoming', 'slow question'], ['outgoing', 'late reply']]);
  });

  it('ReceiveMiddleware and SendMiddleware alone each end their turn when it ends, also when the bot throws: close() afterwards does not wait for it', async () => {
    for (const Middleware of [ReceiveMiddleware, SendMiddleware]) {
      const client = new TrackingClient({ apiKey: 'test-key-123', baseUrl: h.sink.url, logger: false });
      const adapter = new TestAdapter(async (ctx) => {
        await ctx.sendActivity(`reply to ${ctx.activity.text}`);
        if (ctx.activity.text === 'throw') throw new Error('bot broke');
      }).use(new Middleware(client));
      await adapter.processActivity({ type: 'message', text: 'hi' });
      await expect(adapter.processActivity({ type: 'message', text: 'throw' })).rejects.toThrow('bot broke');
      const started = performance.now();
      // A turn left running would hold close() for half its deadline (5 s) before it took no more records.
      const { stats } = await client.close(10_000);
      expect(performance.now() - started).toBeLessThan(2_500);
      expect(stats).toMatchObject({ delivered: 2, dropped: 0, failed: 0 });
    }
    expect(h.sink.requests.map((r) => [r.query.type, r.body.text])).toEqual([
      ['incoming', 'hi'], ['incoming', 'throw'],
      ['outgoing', 'reply to hi'], ['outgoing', 'reply to throw'],
    ]);
  });

  it('SendMiddleware alone records only outgoing messages', async () => {
    const adapter = new TestAdapter(async (ctx) => void (await ctx.sendActivity('reply'))).use(new SendMiddleware(h.client));
    await adapter.send('hi').startTest();
    expect((await h.records()).map((r) => r.type)).toEqual(['outgoing']);
  });

  it('used together in either order, the incoming message is queued before the replies', async () => {
    const adapter = new TestAdapter(async (ctx) => {
      await ctx.sendActivity('one');
      await ctx.sendActivity('two');
    });
    adapter.use(new SendMiddleware(h.client)).use(new ReceiveMiddleware(h.client));
    await adapter.send('hi').startTest();
    expect((await h.records()).map((r) => [r.type, r.body.text])).toEqual([
      ['incoming', 'hi'],
      ['outgoing', 'one'],
      ['outgoing', 'two'],
    ]);
  });
});

describe('activities with parts missing', () => {
  it('a message without `recipient` (so the replies have no `from`) still makes valid incoming and outgoing records, generic and messenger', async () => {
    for (const channelId of ['webchat', 'facebook']) {
      // The template is applied last: the adapter's own default recipient is taken away.
      const adapter = new TestAdapter(async (ctx) => void (await ctx.sendActivity('reply')), { recipient: undefined } as Partial<Activity>);
      adapter.use(new TrackingMiddleware({ client: h.client }));
      await adapter.processActivity({ type: 'message', text: 'hi', channelId, from: { id: 'user-1', name: '' } } as Partial<Activity>);
    }
    const records = await h.records();
    expect(h.errors).toEqual([]);
    expect(records.map((r) => [r.platform, r.type])).toEqual([['universal', 'incoming'], ['universal', 'outgoing'], ['facebook', 'incoming'], ['facebook', 'outgoing']]);
    expect(records[0].body).toMatchObject({ text: 'hi', userId: 'user-1' });
    expect(records[0].body.platformJson).not.toHaveProperty('recipient');
    expect(records[1].body).toMatchObject({ text: 'reply', userId: 'user-1' });
    expect(records[1].body.platformJson).not.toHaveProperty('from');
    // Messenger: the page (the entry's id and the event's recipient) is unknown, the sender is the user.
    expect(records[2].body.entry).toEqual([{ id: '', time: expect.any(Number), messaging: [expect.objectContaining({ sender: { id: 'user-1' }, recipient: { id: '' }, message: expect.objectContaining({ text: 'hi' }) })] }]);
    expect(records[3].body.json).toEqual({ recipient: { id: 'user-1' }, message: { text: 'reply' } });
  });

  it('a message without `from` has no user to record it for: the client reports the refused records and the turn goes on', async () => {
    const adapter = new TestAdapter(async (ctx) => void (await ctx.sendActivity('reply')), { from: undefined } as Partial<Activity>);
    adapter.use(new TrackingMiddleware({ client: h.client }));
    await adapter.processActivity({ type: 'message', text: 'hi' });
    expect(await h.records()).toEqual([]);
    await settle();
    expect(h.errors.map((e) => [e.name, e.message.includes('userId')])).toEqual([['TrackingValidationError', true], ['TrackingValidationError', true]]);
    expect(adapter.activeQueue.map((a) => a.text)).toEqual(['reply']);
  });

  it('a message with neither from nor recipient, on a generic channel and on facebook: the turn goes on and its replies go out; the records without a user are reported, naming the field', async () => {
    for (const channelId of ['webchat', 'facebook']) {
      const adapter = new TestAdapter(async (ctx) => void (await ctx.sendActivity('reply')), { from: undefined, recipient: undefined } as Partial<Activity>);
      adapter.use(new TrackingMiddleware({ client: h.client }));
      await expect(adapter.processActivity({ type: 'message', text: 'hi', channelId } as Partial<Activity>)).resolves.toBeUndefined();
      expect(adapter.activeQueue.map((a) => a.text)).toEqual(['reply']);
    }
    expect(await h.records()).toEqual([]);
    await settle();
    expect(unhandled).toEqual([]);
    expect(h.errors.map((e) => e.name)).toEqual(Array(4).fill('TrackingValidationError'));
    expect(h.errors.map((e) => e.message.match(/userId|sender\.id|recipient\.id/)?.[0])).toEqual(['userId', 'userId', 'sender.id', 'recipient.id']);
  });
});

describe('packaging', () => {
  it('src/middleware loads nothing of botbuilder at run time (type imports only)', async () => {
    const { readdir, readFile } = await import('node:fs/promises');
    const dir = new URL('../../src/middleware/', import.meta.url);
    const offenders: string[] = [];
    for (const file of await readdir(dir)) {
      const source = await readFile(new URL(file, dir), 'utf8');
      for (const line of source.split('\n')) {
        if (/^\s*(import|export)\b(?!\s+type\b).*from\s+['"]botbuilder[^'"]*['"]/.test(line) || /require\(['"]botbuilder/.test(line) || /import\(['"]botbuilder/.test(line)) offenders.push(`${file}: ${line.trim()}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('records a turn whose activity has no channel data at all (BotFrameworkAdapter-like minimal activity)', async () => {
    const adapter = adapterWith(h, async () => undefined);
    await send(adapter, { type: 'message', text: 'bare', from: { id: 'u-9', name: '' }, recipient: { id: 'b', name: '' } } as Partial<Activity>);
    expect((await h.records())[0].body).toMatchObject({ text: 'bare', userId: 'u-9' });
  });
});
