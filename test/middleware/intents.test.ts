import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Activity, RecognizerResult, TurnContext } from 'botbuilder';
import { intentFromRecognizerResult, setIntent, setOutgoingIntent } from '../../src/middleware/index.js';
import { inputsFromEntities, recognizerResultOfClu, recognizerResultOfTrace, toIntent, type IntentSource } from '../../src/middleware/intents.js';
import { transcriptEntries } from 'botbuilder-conversation-analytics-endpoint';
import type { StoredRecord } from 'botbuilder-conversation-analytics-endpoint';
import { adapterWith, send, startHarness, userMessage, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const flight: RecognizerResult = {
  text: 'book a flight to New York tomorrow',
  intents: { None: { score: 0.05 }, BookFlight: { score: 0.92 }, Cancel: { score: 0.3 } },
  entities: {
    city: [['new york']],
    datetime: [{ type: 'date', timex: ['2024-05-02'] }],
    $instance: {
      city: [{ startIndex: 17, endIndex: 25, text: 'New York', type: 'city' }],
      datetime: [{ startIndex: 26, endIndex: 34, text: 'tomorrow', type: 'builtin.datetimeV2.date' }],
    },
  },
};
/** The entities of `flight` as intent inputs, with the text the user typed. */
const flightEntities = [{ name: 'city', value: 'New York' }, { name: 'datetime', value: 'tomorrow' }];
/** The intent recorded for `flight`: its entities, then the recognizer's confidence in BookFlight. */
const flightIntent = { name: 'BookFlight', inputs: [...flightEntities, { name: 'score', value: '0.92' }] };

/** The trace LuisRecognizer sends each turn. */
function luisTrace(result: RecognizerResult): Partial<Activity> {
  return { type: 'trace', name: 'LuisRecognizer', label: 'Luis Trace', valueType: 'https://www.luis.ai/schemas/trace', value: { recognizerResult: result, luisModel: { ModelID: 'x' } } };
}

describe('intentFromRecognizerResult', () => {
  it('names the intent after the top-scoring one and turns entities into inputs with the text the user typed', () => {
    expect(intentFromRecognizerResult(flight)).toEqual(flightIntent);
  });

  it('records a top intent below minScore as NotHandled, keeping the recognizer\'s intent and score before the entities', () => {
    const below = intentFromRecognizerResult(flight, { minScore: 0.95 });
    expect(below?.name).toBe('NotHandled');
    // The score comes once, second, and the entities follow: no score after them.
    expect(below?.inputs).toEqual([{ name: 'topIntent', value: 'BookFlight' }, { name: 'score', value: '0.92' }, ...flightEntities]);
    // At the threshold exactly, the intent stands.
    expect(intentFromRecognizerResult(flight, { minScore: 0.92 })?.name).toBe('BookFlight');
  });

  it('records LUIS\'s and CLU\'s None, or the noneIntents given, as NotHandled', () => {
    const none = { text: 'blah', intents: { None: { score: 0.8 }, Greeting: { score: 0.1 } }, entities: {} };
    expect(intentFromRecognizerResult(none)).toEqual({ name: 'NotHandled', inputs: [{ name: 'topIntent', value: 'None' }, { name: 'score', value: '0.8' }] });
    const fallback = { text: 'blah', intents: { Fallback: { score: 0.8 } } };
    expect(intentFromRecognizerResult(fallback)?.name).toBe('Fallback');
    expect(intentFromRecognizerResult(fallback, { noneIntents: ['Fallback'] })?.name).toBe('NotHandled');
    expect(intentFromRecognizerResult(none, { noneIntents: [] })?.name).toBe('None');
  });

  it('reads a CLU response (conversation project): topIntent by confidence, entities with the text typed', () => {
    const prediction = {
      topIntent: 'OrderPizza', projectKind: 'Conversation',
      intents: [{ category: 'OrderPizza', confidenceScore: 0.93 }, { category: 'None', confidenceScore: 0.2 }],
      entities: [{ category: 'Size', text: 'large', offset: 8, length: 5, confidenceScore: 1 }, { category: 'Topping', text: 'ham', offset: 20, length: 3, confidenceScore: 1 }],
    };
    const result = recognizerResultOfClu(prediction, 'I want a large pizza with ham');
    expect(intentFromRecognizerResult(result)).toEqual({ name: 'OrderPizza', inputs: [{ name: 'Size', value: 'large' }, { name: 'Topping', value: 'ham' }, { name: 'score', value: '0.93' }] });
    // An orchestration project: intents keyed by name.
    const orchestration = recognizerResultOfClu({ topIntent: 'Pizza', projectKind: 'Orchestration', intents: { Pizza: { confidenceScore: 0.7, targetProjectKind: 'Conversation' }, None: { confidenceScore: 0.1 } } });
    expect(intentFromRecognizerResult(orchestration)).toEqual({ name: 'Pizza', inputs: [{ name: 'score', value: '0.7' }] });
  });

  it('reads a CLU orchestration project that routed to a conversation project: the nested prediction\'s intent and entities', () => {
    const routed = {
      projectKind: 'Orchestration', topIntent: 'PizzaProject',
      intents: {
        PizzaProject: {
          targetProjectKind: 'Conversation', confidenceScore: 0.88,
          result: { query: 'two large pizzas', prediction: { projectKind: 'Conversation', topIntent: 'OrderPizza', intents: [{ category: 'OrderPizza', confidenceScore: 0.95 }, { category: 'None', confidenceScore: 0.02 }], entities: [{ category: 'Quantity', text: 'two', offset: 0, length: 3, confidenceScore: 1 }, { category: 'Size', text: 'large', offset: 4, length: 5, confidenceScore: 1 }] } },
        },
        FaqProject: { targetProjectKind: 'QuestionAnswering', confidenceScore: 0.1, result: { answers: [] } },
      },
    };
    const result = recognizerResultOfClu(routed);
    expect(result.text).toBe('two large pizzas');
    // The score is the nested prediction's confidence in OrderPizza, not the route's (0.88).
    expect(intentFromRecognizerResult(result)).toEqual({ name: 'OrderPizza', inputs: [{ name: 'Quantity', value: 'two' }, { name: 'Size', value: 'large' }, { name: 'score', value: '0.95' }] });
    // Without topIntent, the highest confidence decides the route.
    const { topIntent: _top, ...noTop } = routed;
    expect(intentFromRecognizerResult(recognizerResultOfClu(noTop))?.name).toBe('OrderPizza');
    // A route to question answering keeps the orchestration's own intent.
    const toFaq = { ...routed, topIntent: 'FaqProject', intents: { ...routed.intents, FaqProject: { ...routed.intents.FaqProject, confidenceScore: 0.9 } } };
    expect(intentFromRecognizerResult(recognizerResultOfClu(toFaq))).toEqual({ name: 'FaqProject', inputs: [{ name: 'score', value: '0.9' }] });
  });

  it('makes one input per value of an entity array, and uses JSON for values without instance text', () => {
    const result = { text: 'x', intents: { Order: { score: 1 } }, entities: { topping: ['cheese', 'ham'], size: [{ value: 'large', $instance: { a: 1 } }], count: 2 } };
    expect(intentFromRecognizerResult(result)?.inputs).toEqual([
      { name: 'topping', value: 'cheese' },
      { name: 'topping', value: 'ham' },
      { name: 'size', value: '{"value":"large"}' },
      { name: 'count', value: '2' },
      { name: 'score', value: '1' },
    ]);
  });

  it("puts the recognizer's confidence in the top intent last, as one `score` input after the entities", () => {
    const intent = intentFromRecognizerResult(flight);
    expect(intent?.inputs.map((input) => input.name)).toEqual(['city', 'datetime', 'score']);
    expect(intent?.inputs.at(-1)).toEqual({ name: 'score', value: '0.92' });
    // The top intent's score, not another intent's; written as the recognizer gave it.
    const close = { text: 'x', intents: { Cancel: { score: 0.3 }, Refund: { score: 0.623456789 } }, entities: { order: ['A-17'] } };
    expect(intentFromRecognizerResult(close)).toEqual({ name: 'Refund', inputs: [{ name: 'order', value: 'A-17' }, { name: 'score', value: '0.623456789' }] });
  });

  it('gives no intent for a result without intents', () => {
    expect(intentFromRecognizerResult({ text: 'x', intents: {} })).toBeUndefined();
  });

  it('on a tie between intents, the first one the recognizer listed wins', () => {
    expect(intentFromRecognizerResult({ text: 'x', intents: { Book: { score: 0.5 }, Cancel: { score: 0.5 } } })?.name).toBe('Book');
    expect(intentFromRecognizerResult({ text: 'x', intents: { Cancel: { score: 0.5 }, Book: { score: 0.5 } } })?.name).toBe('Cancel');
    // A later intent wins only by scoring strictly higher.
    expect(intentFromRecognizerResult({ text: 'x', intents: { Cancel: { score: 0.5 }, Book: { score: 0.5000001 } } })?.name).toBe('Book');
  });

  it('an intent whose score is not a finite number counts as scoring 0', () => {
    // A score given as a string, NaN or Infinity, or none at all, loses to any real score…
    const odd = { text: 'x', intents: { Text: { score: '0.9' }, Nan: { score: Number.NaN }, Inf: { score: Number.POSITIVE_INFINITY }, Missing: {}, Real: { score: 0.2 } } };
    expect(intentFromRecognizerResult(odd as never)).toEqual({ name: 'Real', inputs: [{ name: 'score', value: '0.2' }] });
    // …and on its own it is the top intent with score 0, which any minScore above 0 makes NotHandled.
    const alone = { text: 'x', intents: { Greeting: { score: 'high' } } };
    expect(intentFromRecognizerResult(alone as never)).toEqual({ name: 'Greeting', inputs: [{ name: 'score', value: '0' }] });
    expect(intentFromRecognizerResult(alone as never, { minScore: 0.1 })).toEqual({ name: 'NotHandled', inputs: [{ name: 'topIntent', value: 'Greeting' }, { name: 'score', value: '0' }] });
    // A negative score is below the default minScore of 0.
    expect(intentFromRecognizerResult({ text: 'x', intents: { Odd: { score: -0.5 } } })?.name).toBe('NotHandled');
    // An intent entry that is not an object at all is read as score 0 too, and does not throw.
    expect(intentFromRecognizerResult({ text: 'x', intents: { Broken: null, Real: { score: 0.3 } } } as never)?.name).toBe('Real');
  });

  it('an intent without a name is never chosen: the named intents compete, and a result with only a nameless one gives no intent', () => {
    // The spec refuses an intent with an empty name, so choosing it would lose the whole message record.
    expect(intentFromRecognizerResult({ text: 'x', intents: { '': { score: 0.9 }, Greeting: { score: 0.4 } } })).toEqual({ name: 'Greeting', inputs: [{ name: 'score', value: '0.4' }] });
    expect(intentFromRecognizerResult({ text: 'x', intents: { '': { score: 0.9 } } })).toBeUndefined();
    // The same for a CLU prediction with an empty category.
    expect(intentFromRecognizerResult(recognizerResultOfClu({ intents: [{ category: '', confidenceScore: 0.9 }, { category: 'Order', confidenceScore: 0.3 }] }))?.name).toBe('Order');
  });
});

describe('odd recognizer and CLU results', () => {
  it('entities: null or undefined values give no input, and an instance without a string text falls back to the value', () => {
    expect(inputsFromEntities({ city: [null, 'paris', undefined], country: null, $instance: { city: [{ text: 'x' }, { text: 7 }] } })).toEqual([{ name: 'city', value: 'paris' }]);
    expect(inputsFromEntities('not entities')).toEqual([]);
  });

  it('something that is not a recognizer result gives no intent', () => {
    expect(intentFromRecognizerResult({ text: 'x' } as never)).toBeUndefined();
    expect(intentFromRecognizerResult(null as never)).toBeUndefined();
  });

  it('toIntent: anything but a name, an intent with a name, or a recognizer result gives no intent; inputs that are not objects are dropped', () => {
    expect(toIntent(42)).toBeUndefined();
    expect(toIntent(null)).toBeUndefined();
    expect(toIntent({ name: 5, inputs: [] })).toBeUndefined();
    expect(toIntent({ inputs: [] })).toBeUndefined();
    expect(toIntent({ name: 'Order', inputs: [null, 'size=large', { name: 'size', value: 2 }] })).toEqual({ name: 'Order', inputs: [{ name: 'size', value: '2' }] });
    expect(toIntent({ name: 'Order', inputs: 'size=large' })).toEqual({ name: 'Order', inputs: [] });
  });

  it('a CLU prediction: intents and entities that are not objects or have no string category are skipped, a non-numeric confidence counts as 0', () => {
    const result = recognizerResultOfClu({ intents: [null, { category: 5, confidenceScore: 0.99 }, { category: 'Order', confidenceScore: '0.9' }, { category: 'Ask', confidenceScore: 0.2 }], entities: [null, { category: 7, text: 'x' }, { category: 'Topping', text: 'ham' }, { category: 'Topping', text: 'pineapple' }] }, 'q');
    expect(result).toEqual({ text: 'q', intents: { Order: { score: 0 }, Ask: { score: 0.2 } }, entities: { Topping: ['ham', 'pineapple'] } });
    expect(intentFromRecognizerResult(result)).toEqual({ name: 'Ask', inputs: [{ name: 'Topping', value: 'ham' }, { name: 'Topping', value: 'pineapple' }, { name: 'score', value: '0.2' }] });
    // An orchestration whose intents are not objects, or have no confidence: each scores 0, and nothing throws.
    expect(recognizerResultOfClu({ intents: { A: null, B: { confidenceScore: 0.4 }, C: 'x' } })).toEqual({ text: undefined, intents: { A: { score: 0 }, B: { score: 0.4 }, C: { score: 0 } }, entities: {} });
  });

  const conversation = (category: string, query?: string) => ({ ...(query === undefined ? {} : { query }), prediction: { projectKind: 'Conversation', intents: [{ category, confidenceScore: 0.8 }], entities: [] } });

  it('an orchestration follows the route its topIntent names, even when another route scores higher; a topIntent that names no intent falls back to the highest confidence', () => {
    const intents = { Faq: { targetProjectKind: 'QuestionAnswering', confidenceScore: 0.1, result: { answers: [] } }, Pizza: { targetProjectKind: 'Conversation', confidenceScore: 0.9, result: conversation('OrderPizza') } };
    // Routed to question answering: not followed, so the orchestration's own intents stand (its best, Pizza, not the nested OrderPizza).
    expect(intentFromRecognizerResult(recognizerResultOfClu({ topIntent: 'Faq', intents }))?.name).toBe('Pizza');
    expect(intentFromRecognizerResult(recognizerResultOfClu({ topIntent: 'Missing', intents }))?.name).toBe('OrderPizza');
    expect(intentFromRecognizerResult(recognizerResultOfClu({ topIntent: 7, intents }))?.name).toBe('OrderPizza');
  });

  it('an orchestration without topIntent routes to the highest numeric confidence, the first one on a tie', () => {
    const route = (confidenceScore: unknown, category: string) => ({ targetProjectKind: 'Conversation', confidenceScore, result: conversation(category) });
    expect(intentFromRecognizerResult(recognizerResultOfClu({ intents: { Text: route('0.99', 'FromText'), Real: route(0.5, 'FromReal') } }))?.name).toBe('FromReal');
    expect(intentFromRecognizerResult(recognizerResultOfClu({ intents: { First: route(0.5, 'FromFirst'), Second: route(0.5, 'FromSecond') } }))?.name).toBe('FromFirst');
    // No route with a numeric confidence: the orchestration's own intents, each scoring 0.
    expect(recognizerResultOfClu({ intents: { Only: { targetProjectKind: 'Conversation', result: conversation('Nested') } } }).intents).toEqual({ Only: { score: 0 } });
  });

  it('an orchestration is not routed to a target that is not a conversation project, nor to one without a conversation prediction', () => {
    const luis = { topIntent: 'L', intents: { L: { targetProjectKind: 'Luis', confidenceScore: 0.9, result: conversation('Nested') } } };
    expect(intentFromRecognizerResult(recognizerResultOfClu(luis))?.name).toBe('L');
    const empty = { topIntent: 'C', intents: { C: { targetProjectKind: 'Conversation', confidenceScore: 0.9, result: { query: 'q' } } } };
    expect(intentFromRecognizerResult(recognizerResultOfClu(empty))?.name).toBe('C');
    const noResult = { topIntent: 'C', intents: { C: { targetProjectKind: 'Conversation', confidenceScore: 0.9 } } };
    expect(intentFromRecognizerResult(recognizerResultOfClu(noResult))?.name).toBe('C');
    const nestedOrchestration = { topIntent: 'C', intents: { C: { targetProjectKind: 'Conversation', confidenceScore: 0.9, result: { prediction: { topIntent: 'X', intents: { X: { confidenceScore: 1 } } } } } } };
    expect(intentFromRecognizerResult(recognizerResultOfClu(nestedOrchestration))?.name).toBe('C');
  });

  it("a routed result's text is the nested query, else the text given", () => {
    const routed = (result: object) => ({ topIntent: 'P', intents: { P: { targetProjectKind: 'Conversation', confidenceScore: 0.9, result } } });
    expect(recognizerResultOfClu(routed(conversation('OrderPizza', 'two pizzas')), 'outer').text).toBe('two pizzas');
    expect(recognizerResultOfClu(routed({ ...conversation('OrderPizza'), query: 5 }), 'outer').text).toBe('outer');
  });

  it('recognizerResultOfTrace: a trace without an object value carries nothing; a LUIS trace is read only from its recognizerResult', () => {
    expect(recognizerResultOfTrace({ type: 'trace' })).toBeUndefined();
    expect(recognizerResultOfTrace({ type: 'trace', value: 'text' })).toBeUndefined();
    const bare = { text: 'hi', intents: { Greeting: { score: 0.8 } } };
    expect(recognizerResultOfTrace({ type: 'trace', valueType: 'https://www.luis.ai/schemas/trace', value: bare })).toBeUndefined();
    expect(recognizerResultOfTrace({ type: 'trace', valueType: 'https://example.com/other', value: bare })).toBe(bare);
    // A value with a prediction that is not CLU's (intents keyed by name need a topIntent) carries nothing.
    expect(recognizerResultOfTrace({ type: 'trace', value: { prediction: { intents: { A: { confidenceScore: 1 } } } } })).toBeUndefined();
    expect(recognizerResultOfTrace({ type: 'trace', value: { prediction: { topIntent: 'A', intents: { A: { confidenceScore: 1 } } } } })?.intents).toEqual({ A: { score: 1 } });
    expect(recognizerResultOfTrace({ type: 'trace', value: { prediction: 'x' } })).toBeUndefined();
  });

  it("recognizerResultOfTrace: a CLU response's query is the result's text, when it is a string", () => {
    const prediction = { intents: [{ category: 'A', confidenceScore: 1 }] };
    expect(recognizerResultOfTrace({ type: 'trace', value: { response: { result: { query: 'q', prediction } } } })?.text).toBe('q');
    expect(recognizerResultOfTrace({ type: 'trace', value: { result: { query: 5, prediction } } })?.text).toBeUndefined();
  });
});

describe('intent placement', () => {
  it('puts the intent at the root of a generic incoming record', async () => {
    const adapter = adapterWith(h, async (ctx) => {
      setIntent(ctx, { name: 'BookFlight', inputs: flightEntities });
      await ctx.sendActivity('booking');
    });
    await send(adapter, userMessage({ text: flight.text }));
    const [incoming, outgoing] = await h.records();
    expect(incoming.body.intent).toEqual({ name: 'BookFlight', inputs: [{ name: 'city', value: 'New York' }, { name: 'datetime', value: 'tomorrow' }] });
    expect(outgoing.body).not.toHaveProperty('intent');
  });

  it('puts the intent on each messaging event of a messenger incoming record', async () => {
    const adapter = adapterWith(h, async (ctx) => void setIntent(ctx, 'Greeting'));
    await send(adapter, userMessage({ channelId: 'facebook', channelData: { object: 'page', entry: [{ id: 'page-7', time: 1, messaging: [{ sender: { id: 'u' }, recipient: { id: 'page-7' }, timestamp: 1, message: { text: 'a' } }, { sender: { id: 'u' }, recipient: { id: 'page-7' }, timestamp: 2, message: { text: 'b' } }] }] } }));
    const [incoming] = await h.records();
    expect(incoming.body).not.toHaveProperty('intent');
    expect(incoming.body.entry[0].messaging.map((m: any) => m.intent)).toEqual([{ name: 'Greeting', inputs: [] }, { name: 'Greeting', inputs: [] }]);
  });

  it('puts the intent at the root of a messenger outgoing record', async () => {
    const adapter = adapterWith(h, async (ctx) => {
      setOutgoingIntent(ctx, { name: 'AskCity', inputs: [{ name: 'slot', value: 'city' }] });
      await ctx.sendActivity('Which city?');
    });
    await send(adapter, userMessage({ channelId: 'facebook' }));
    const outgoing = (await h.records())[1];
    expect(outgoing.body.intent).toEqual({ name: 'AskCity', inputs: [{ name: 'slot', value: 'city' }] });
    expect(outgoing.body.json).not.toHaveProperty('intent');
  });
});

describe('setIntent and setOutgoingIntent', () => {
  it('setIntent with a recognizer result records its top intent, entities and score', async () => {
    const adapter = adapterWith(h, async (ctx) => void setIntent(ctx, flight));
    await send(adapter, userMessage({ text: flight.text }));
    expect((await h.records())[0].body.intent).toEqual(flightIntent);
  });

  it("only a recognizer result gets a score: setIntent('Name') and setIntent({ name, inputs }) are recorded as given", async () => {
    const given: IntentSource[] = [flight, 'Greeting', { name: 'BookFlight', inputs: [{ name: 'city', value: 'New York' }] }];
    const adapter = adapterWith(h, async (ctx) => void setIntent(ctx, given[Number(ctx.activity.text)]));
    for (const index of given.keys()) await send(adapter, userMessage({ text: String(index) }));
    const records = await h.records();
    expect(records.map((r) => r.body.intent)).toEqual([
      { name: 'BookFlight', inputs: [{ name: 'city', value: 'New York' }, { name: 'datetime', value: 'tomorrow' }, { name: 'score', value: '0.92' }] },
      { name: 'Greeting', inputs: [] },
      { name: 'BookFlight', inputs: [{ name: 'city', value: 'New York' }] },
    ]);
    // The endpoint reads the score as the intent's confidence; an intent without one has none.
    const scores = records.map((record, i) => transcriptEntries({ seq: i + 1, receivedAt: '2026-05-01T10:00:00.000Z', platform: record.platform, platformKind: 'universal', type: record.type, body: record.body } as unknown as StoredRecord)[0].intentScore);
    expect(scores).toEqual([0.92, undefined, undefined]);
  });

  it('setIntent after the first reply is too late: it returns false and the incoming record has no intent', async () => {
    let accepted: boolean[] = [];
    const adapter = adapterWith(h, async (ctx) => {
      accepted.push(setIntent(ctx, 'Early'));
      await ctx.sendActivity('reply');
      accepted.push(setIntent(ctx, 'Late'));
    });
    await send(adapter, userMessage());
    expect(accepted).toEqual([true, false]);
    expect((await h.records())[0].body.intent).toEqual({ name: 'Early', inputs: [] });
    accepted = [];
  });

  it('setOutgoingIntent labels only the next outgoing message, not typing before it nor messages after it', async () => {
    const adapter = adapterWith(h, async (ctx) => {
      setOutgoingIntent(ctx, 'Offer');
      await ctx.sendActivity({ type: 'typing' });
      await ctx.sendActivity('Would you like a discount?');
      await ctx.sendActivity('Anything else?');
    });
    await send(adapter, userMessage());
    const outgoing = (await h.records()).filter((r) => r.type === 'outgoing');
    expect(outgoing.map((r) => r.body.intent)).toEqual([{ name: 'Offer', inputs: [] }, undefined]);
  });

  it('the minIntentScore option records low-scoring recognizer intents as NotHandled', async () => {
    const adapter = adapterWith(h, async (ctx) => void setIntent(ctx, flight), { minIntentScore: 0.95 });
    await send(adapter, userMessage());
    expect((await h.records())[0].body.intent.name).toBe('NotHandled');
  });

  it('the minIntentScore option: a recognizer intent below it is recorded as NotHandled, one at it or above is recorded as itself', async () => {
    const results = [
      { text: 'x', intents: { Greeting: { score: 0.49 } } },
      { text: 'x', intents: { Greeting: { score: 0.5 } } },
      { text: 'x', intents: { Greeting: { score: 0.7 } } },
    ];
    const adapter = adapterWith(h, async (ctx) => void setIntent(ctx, results[Number(ctx.activity.text)]), { minIntentScore: 0.5 });
    for (const index of results.keys()) await send(adapter, userMessage({ text: String(index) }));
    expect((await h.records()).map((r) => r.body.intent)).toEqual([
      { name: 'NotHandled', inputs: [{ name: 'topIntent', value: 'Greeting' }, { name: 'score', value: '0.49' }] },
      { name: 'Greeting', inputs: [{ name: 'score', value: '0.5' }] },
      { name: 'Greeting', inputs: [{ name: 'score', value: '0.7' }] },
    ]);
    // An intent set by name is recorded as given: minIntentScore only judges recognizer results.
    const named = adapterWith(h, async (ctx) => void setIntent(ctx, 'Greeting'), { minIntentScore: 0.5 });
    await send(named, userMessage());
    expect((await h.records()).at(-1)?.body.intent).toEqual({ name: 'Greeting', inputs: [] });
  });

  it('the minIntentScore option also applies to the intent picked up from a recognizer trace and to setOutgoingIntent', async () => {
    const adapter = adapterWith(h, async (ctx) => {
      await ctx.sendActivity(luisTrace(flight));
      setOutgoingIntent(ctx, { text: 'x', intents: { Offer: { score: 0.3 } } });
      await ctx.sendActivity('ok');
    }, { minIntentScore: 0.95 });
    await send(adapter, userMessage());
    const [incoming, outgoing] = await h.records();
    expect(incoming.body.intent).toEqual({ name: 'NotHandled', inputs: [{ name: 'topIntent', value: 'BookFlight' }, { name: 'score', value: '0.92' }, ...flightEntities] });
    expect(outgoing.body.intent).toEqual({ name: 'NotHandled', inputs: [{ name: 'topIntent', value: 'Offer' }, { name: 'score', value: '0.3' }] });
  });

  it('an empty intent name never costs the message its record: setIntent(\'\') and { name: \'\' } record the message without an intent', async () => {
    const given: IntentSource[] = ['', { name: '', inputs: [] }, { text: 'x', intents: { '': { score: 1 } } }];
    const adapter = adapterWith(h, async (ctx) => {
      setIntent(ctx, given[Number(ctx.activity.text)]);
      setOutgoingIntent(ctx, given[Number(ctx.activity.text)]);
      await ctx.sendActivity('reply');
    });
    for (const index of given.keys()) await send(adapter, userMessage({ text: String(index) }));
    const records = await h.records();
    expect(h.errors).toEqual([]);
    expect(records.map((r) => [r.type, r.body.text, 'intent' in r.body])).toEqual([
      ['incoming', '0', false], ['outgoing', 'reply', false],
      ['incoming', '1', false], ['outgoing', 'reply', false],
      ['incoming', '2', false], ['outgoing', 'reply', false],
    ]);
  });

  it('the noneIntents option names the recognizer intents that mean "not understood"', async () => {
    const adapter = adapterWith(h, async (ctx) => void setIntent(ctx, { text: 'x', intents: { Fallback: { score: 0.9 } } }), { noneIntents: ['Fallback'] });
    await send(adapter, userMessage());
    expect((await h.records())[0].body.intent).toEqual({ name: 'NotHandled', inputs: [{ name: 'topIntent', value: 'Fallback' }, { name: 'score', value: '0.9' }] });
  });
});

/**
 * What `ConversationAnalysisClient.analyzeConversation` (@azure/ai-language-conversations, the
 * JavaScript SDK the samples call) answers for a conversation project: its intents and entities
 * carry `confidence`. The REST API and the C# SDK name the same field `confidenceScore`.
 */
function cluResponse(query: string, intents: [string, number][], entities: { category: string; text: string }[] = [], confidenceField: 'confidence' | 'confidenceScore' = 'confidence') {
  return {
    kind: 'ConversationResult',
    result: { query, prediction: { projectKind: 'Conversation', topIntent: intents[0][0], intents: intents.map(([category, score]) => ({ category, [confidenceField]: score })), entities: entities.map((e) => ({ ...e, offset: query.indexOf(e.text), length: e.text.length, [confidenceField]: 1 })) } },
  };
}

describe('recognizer traces', () => {
  it("picks up the intent from the JavaScript BotBuilder samples' CLU trace: sendTraceActivity('CLU Recognizer', { response }, 'CLU Trace')", async () => {
    const adapter = adapterWith(h, async (ctx) => {
      const response = ctx.activity.text === 'a large pizza' ? cluResponse('a large pizza', [['OrderPizza', 0.91], ['None', 0.3]], [{ category: 'Size', text: 'large' }]) : cluResponse('no idea', [['None', 0.7], ['OrderPizza', 0.2]]);
      // What the samples' CluRecognizer does, word for word: the label goes in as the valueType.
      await ctx.sendTraceActivity('CLU Recognizer', { response }, 'CLU Trace');
      await ctx.sendActivity('ok');
    });
    await send(adapter, userMessage({ text: 'a large pizza' }));
    await send(adapter, userMessage({ text: 'no idea' }));
    const incoming = (await h.records()).filter((r) => r.type === 'incoming').map((r) => r.body.intent);
    expect(incoming).toEqual([
      { name: 'OrderPizza', inputs: [{ name: 'Size', value: 'large' }, { name: 'score', value: '0.91' }] },
      { name: 'NotHandled', inputs: [{ name: 'topIntent', value: 'None' }, { name: 'score', value: '0.7' }] },
    ]);
  });

  it("reads the confidence by either name: the JavaScript SDK's confidence and the REST API's confidenceScore, so minIntentScore judges the real score", async () => {
    const shapes = [cluResponse('a large pizza', [['OrderPizza', 0.93]], [], 'confidence'), cluResponse('a large pizza', [['OrderPizza', 0.93]], [], 'confidenceScore'), cluResponse('a large pizza', [['OrderPizza', 0.3]], [], 'confidence')];
    const adapter = adapterWith(h, async (ctx) => {
      await ctx.sendTraceActivity('CLU Recognizer', { response: shapes[Number(ctx.activity.text)] }, 'CLU Trace');
      await ctx.sendActivity('ok');
    }, { minIntentScore: 0.5 });
    for (const index of shapes.keys()) await send(adapter, userMessage({ text: String(index) }));
    expect((await h.records()).filter((r) => r.type === 'incoming').map((r) => r.body.intent)).toEqual([
      { name: 'OrderPizza', inputs: [{ name: 'score', value: '0.93' }] },
      { name: 'OrderPizza', inputs: [{ name: 'score', value: '0.93' }] },
      { name: 'NotHandled', inputs: [{ name: 'topIntent', value: 'OrderPizza' }, { name: 'score', value: '0.3' }] },
    ]);
  });

  it('an orchestration project routes by either confidence name when it has no topIntent', () => {
    const nested = { query: 'q', prediction: { projectKind: 'Conversation', intents: [{ category: 'Pizza', confidence: 0.9 }], entities: [] } };
    const faq = { targetProjectKind: 'QuestionAnswering', result: { answers: [] } };
    expect(recognizerResultOfClu({ intents: { Faq: { ...faq, confidence: 0.2 }, Orders: { targetProjectKind: 'Conversation', confidence: 0.8, result: nested } } }).intents).toEqual({ Pizza: { score: 0.9 } });
    expect(recognizerResultOfClu({ intents: { Faq: { ...faq, confidence: 0.9 }, Orders: { targetProjectKind: 'Conversation', confidence: 0.8, result: nested } } }).intents).toEqual({ Faq: { score: 0.9 }, Orders: { score: 0.8 } });
  });

  it('picks up the intent from other CLU trace shapes: the response unwrapped, a bare prediction, a RecognizerResult (the C# recognizer), an orchestration', async () => {
    const pizza = cluResponse('a large pizza', [['OrderPizza', 0.91]], [{ category: 'Size', text: 'large' }]);
    const orchestration = { kind: 'ConversationResult', result: { query: 'a large pizza', prediction: { projectKind: 'Orchestration', topIntent: 'Orders', intents: { Orders: { targetProjectKind: 'Conversation', confidenceScore: 0.9, result: pizza.result } } } } };
    const values = [pizza, pizza.result, { recognizerResult: { text: 'a large pizza', intents: { OrderPizza: { score: 0.91 } }, entities: { Size: ['large'] } } }, { response: orchestration }];
    const adapter = adapterWith(h, async (ctx) => {
      await ctx.sendActivity({ type: 'trace', name: 'CluRecognizer', label: 'CLU Trace', valueType: 'https://www.clu.ai/schemas/trace', value: values[Number(ctx.activity.text)] } as Partial<Activity>);
    });
    for (const index of values.keys()) await send(adapter, userMessage({ text: String(index) }));
    const intents = (await h.records()).map((r) => r.body.intent);
    // The orchestration's score is the nested prediction's (0.91), not the route's (0.9).
    expect(intents).toEqual(values.map(() => ({ name: 'OrderPizza', inputs: [{ name: 'Size', value: 'large' }, { name: 'score', value: '0.91' }] })));
  });

  it('records the intent an LLM router chose, set with setIntent from its tool call', async () => {
    // What an LLM router returns: a tool call naming the route, with arguments.
    const toolCall = { name: 'route_to', arguments: JSON.stringify({ intent: 'TrackOrder', order_id: 'A-17' }) };
    const adapter = adapterWith(h, async (ctx) => {
      const { intent, ...args } = JSON.parse(toolCall.arguments) as Record<string, string>;
      setIntent(ctx, { name: intent, inputs: Object.entries(args).map(([name, value]) => ({ name, value })) });
      await ctx.sendActivity('Order A-17 ships today.');
    });
    await send(adapter, userMessage({ text: 'where is my order A-17?' }));
    expect((await h.records())[0].body.intent).toEqual({ name: 'TrackOrder', inputs: [{ name: 'order_id', value: 'A-17' }] });
  });

  it("picks up the intent from LuisRecognizer's trace without being asked, and does not record the trace", async () => {
    const adapter = adapterWith(h, async (ctx) => {
      await ctx.sendActivity(luisTrace(flight));
      await ctx.sendActivity('Booking your flight');
    });
    await send(adapter, userMessage({ text: flight.text }));
    const records = await h.records();
    expect(records.map((r) => r.type)).toEqual(['incoming', 'outgoing']);
    expect(records[0].body.intent).toEqual(flightIntent);
  });

  it("picks up the intent from another recognizer's trace whose value is a recognizer result", async () => {
    const adapter = adapterWith(h, async (ctx) => {
      await ctx.sendActivity({ type: 'trace', name: 'OrchestratorRecognizer', value: { text: 'hi', intents: { Greeting: { score: 0.8 } }, entities: {} } });
    });
    await send(adapter, userMessage({ text: 'hi' }));
    expect((await h.records())[0].body.intent).toEqual({ name: 'Greeting', inputs: [{ name: 'score', value: '0.8' }] });
  });

  it('an explicit setIntent wins over a recognizer trace, whichever comes first', async () => {
    const adapter = adapterWith(h, async (ctx) => {
      setIntent(ctx, 'Chosen');
      await ctx.sendActivity(luisTrace(flight));
      await ctx.sendActivity('ok');
    });
    await send(adapter, userMessage());
    const traceFirst = adapterWith(h, async (ctx) => {
      await ctx.sendActivity(luisTrace(flight));
      setIntent(ctx, 'ChosenLater');
      await ctx.sendActivity('ok');
    });
    await send(traceFirst, userMessage());
    const incoming = (await h.records()).filter((r) => r.type === 'incoming');
    expect(incoming.map((r) => r.body.intent)).toEqual([{ name: 'Chosen', inputs: [] }, { name: 'ChosenLater', inputs: [] }]);
  });

  it('a recognizer trace sent after the first reply does not change the incoming record', async () => {
    const adapter = adapterWith(h, async (ctx: TurnContext) => {
      await ctx.sendActivity('first');
      await ctx.sendActivity(luisTrace(flight));
    });
    await send(adapter, userMessage());
    expect((await h.records())[0].body).not.toHaveProperty('intent');
  });
});
