/**
 * A large, realistic dataset for the database benchmark: two bots, tens of thousands of users
 * whose activity follows a long-tailed distribution over 90 days, visits of 2 to 7 exchanges with
 * intents (some NotHandled, with recognizer scores), buttons and clicks, AI-labelled replies,
 * purchases in two currencies and feedback. Deterministic (seeded), so every run builds the same.
 */
import type { NewRecord } from '../../endpoint/src/store/store.js';

/**
 * The version of the dataset and of how the benchmark builds it: part of the built database's name
 * (bench/.data/dataset-v<N>-<count>.db, tracking_bench_v<N>_<count>), so a change here builds anew.
 * Raise it when the generator or the build changes what is stored.
 */
export const DATASET_VERSION = 5;

/** The dataset's last day; it spans the 90 days before. */
export const END = Date.parse('2026-11-20T00:00:00Z');
const DAY = 86_400_000;
const SPAN_DAYS = 90;

/** A small seeded generator (mulberry32): the same numbers on every run. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const INTENTS = ['Greet', 'OrderPizza', 'TrackOrder', 'Cancel', 'Menu', 'Hours', 'Delivery', 'Payment', 'Refund', 'Complaint', 'Thanks', 'Goodbye', 'Deals', 'Allergens', 'Vegan', 'Drinks', 'Desserts', 'Address', 'Account', 'Help'];
const CHANNELS = ['webchat', 'webchat', 'webchat', 'msteams', 'msteams', 'directline'];
const WORDS = 'pizza order large small cheese ham vegan delivery today tomorrow where is my cancel please thanks menu price open hours card pay refund cold late address change drink dessert deal coupon help hello hi'.split(' ');

/** Keys of the two bots. */
export const BIG_BOT_KEY = 'bench-pizza-key';
export const SMALL_BOT_KEY = 'bench-support-key';

/** A record as the store takes it (bot is the key's fingerprint, filled in by the caller). */
export interface GeneratedRecord {
  key: string;
  record: Omit<NewRecord, 'bot'>;
}

/**
 * Yields `count` records in the order they happen: visits of users drawn from a long-tailed
 * distribution (a few users come back often, most once or twice).
 */
export function* millionRecords(count: number, seed = 7): Generator<GeneratedRecord> {
  const rand = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)];
  const users = Math.max(100, Math.round(count / 25));
  const texts = Array.from({ length: 3000 }, () => Array.from({ length: 2 + Math.floor(rand() * 5) }, () => pick(WORDS)).join(' '));
  let produced = 0;
  const start = END - SPAN_DAYS * DAY;
  while (produced < count) {
    // Long tail: user u's chance falls with its rank.
    const u = Math.floor(users * rand() ** 2.2);
    const small = u % 10 === 9;
    const key = small ? SMALL_BOT_KEY : BIG_BOT_KEY;
    const userId = `user-${u}`;
    const name = u % 3 === 0 ? `User ${u}` : undefined;
    const channel = CHANNELS[u % CHANNELS.length];
    const conversation = `${userId}-c${Math.floor(rand() * 4)}`;
    // More recent days are busier (a bot that grows): the square root leans towards the end.
    let at = start + Math.floor(Math.sqrt(rand()) * SPAN_DAYS * DAY);
    const exchanges = 2 + Math.floor(rand() * 6);
    for (let i = 0; i < exchanges && produced < count; i++) {
      // A recognizer gives the same text the same intent: each common text has its own (8% of them
      // not understood); a one-off text (15% of messages) is not understood half the time.
      const template = Math.floor(rand() * texts.length);
      const unique = rand() < 0.15;
      const notHandled = unique ? rand() < 0.5 : template % 12 === 0;
      const intent = notHandled ? 'NotHandled' : INTENTS[template % INTENTS.length];
      const score = notHandled ? 0.2 + rand() * 0.3 : 0.5 + rand() * 0.5;
      const text = unique ? `${texts[template]} ${Math.floor(rand() * 1e6)}` : texts[template];
      const clicked = i > 0 && rand() < 0.2 ? pick(['order', 'menu', 'track', 'cancel']) : undefined;
      const pj = (extra: Record<string, unknown>) => ({ timestamp: new Date(at).toISOString(), channelId: channel, conversation: { id: conversation }, ...extra });
      yield {
        key,
        record: {
          platform: 'twitter', platformKind: 'directMessage', v: '11.1.0-rest', type: 'incoming',
          body: {
            text: clicked ?? text, userId,
            intent: { name: intent, inputs: notHandled ? [{ name: 'topIntent', value: 'None' }, { name: 'score', value: score.toFixed(3) }] : [{ name: 'score', value: score.toFixed(3) }] },
            ...(clicked ? { postback: { buttonClick: { buttonId: clicked } } } : {}),
            platformJson: pj({ from: { id: userId, ...(name ? { name } : {}) }, id: `in-${produced}` }),
          },
        },
      };
      produced++;
      at += 2_000 + Math.floor(rand() * 60_000);
      if (produced >= count) break;
      const ai = rand() < 0.3;
      const replyId = `out-${produced}`;
      yield {
        key,
        record: {
          platform: 'twitter', platformKind: 'directMessage', v: '11.1.0-rest', type: 'outgoing',
          body: {
            text: notHandled ? 'Sorry, I did not get that.' : `Here is what I found about ${intent.toLowerCase()}.`, userId,
            ...(rand() < 0.4 ? { buttons: [{ id: 'order', label: 'Order', value: 'order' }, { id: 'menu', label: 'Menu', value: 'menu' }] } : {}),
            platformJson: pj({ recipient: { id: userId, ...(name ? { name } : {}) }, id: replyId, ...(ai ? { entities: [{ type: 'https://schema.org/Message', '@type': 'Message', additionalType: ['AIGeneratedContent'] }] } : {}) }),
          },
        },
      };
      produced++;
      at += 1_000 + Math.floor(rand() * 5_000);
      if (produced < count && rand() < 0.03) {
        yield {
          key,
          record: {
            platform: 'twitter', platformKind: 'directMessage', v: '11.1.0-rest', type: 'event',
            body: { type: 'customEvent', name: 'feedback', userId, conversationId: conversation, extraInfo: { reaction: rand() < 0.7 ? 'like' : 'dislike', replyToId: replyId, timestamp: new Date(at).toISOString(), ...(rand() < 0.5 ? { feedbackText: pick(texts) } : {}) } },
          },
        };
        produced++;
      }
      if (produced < count && intent === 'OrderPizza' && rand() < 0.5) {
        yield {
          key,
          record: {
            platform: 'twitter', platformKind: 'directMessage', v: '11.1.0-rest', type: 'event',
            body: { type: 'revenueEvent', name: 'purchase', userId, conversationId: conversation, amount: Math.round((8 + rand() * 30) * 100) / 100, metadata: { currency: rand() < 0.8 ? 'EUR' : 'USD', timestamp: new Date(at).toISOString() } },
          },
        };
        produced++;
      }
    }
  }
}
