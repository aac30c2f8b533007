/**
 * A realistic generated dataset for the page's layout tests and the README's screenshots: a pizza
 * bot's last twelve weeks up to now, as a live bot's endpoint holds them. Users arrive every week
 * (more of them lately) and some come back; sessions wander through thirteen intents (menus,
 * orders, tracking, complaints, things the bot does not understand), click buttons, pay in EUR,
 * USD, GBP or a currency the record does not name, and rate replies, many with a comment. The
 * current week is not over, so retention cohorts have weeks not ended yet, as on every live bot.
 *
 * It is random but seeded: the same records every run, relative to when it runs. No figure is
 * worked out by hand here (endpoint/test/helpers/dataset.ts is the dataset with known answers); this one
 * is for what the page looks like with a bot team's data in it.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
/** Weeks of history, the current one included. */
const WEEKS = 12;

export const LIVE_PIZZA_KEY = 'live-pizza-key-1';
export const LIVE_SUPPORT_KEY = 'live-support-key-2';

/** A conversation of the dataset that shows everything a transcript can: buttons, a click, AI-generated replies, a purchase and a rating. */
export const SHOWCASE_CONVERSATION = 'c-ann-showcase';

/** Mulberry32: a small seeded random number generator. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

type Next = [step: string, weight: number][];

/** Where a session goes from each step (`end`: it stops there). */
const FLOW: Record<string, Next> = {
  start: [['Greet', 70], ['Menu', 10], ['TrackOrder', 10], ['Complaint', 5], ['Hours', 5]],
  Greet: [['Menu', 35], ['OrderPizza', 20], ['TrackOrder', 12], ['Hours', 8], ['NotHandled', 12], ['Delivery', 6], ['Recommend', 7]],
  Menu: [['OrderPizza', 45], ['Allergens', 15], ['Recommend', 15], ['NotHandled', 10], ['end', 15]],
  Recommend: [['OrderPizza', 60], ['Menu', 20], ['end', 20]],
  Allergens: [['OrderPizza', 40], ['Menu', 30], ['end', 30]],
  OrderPizza: [['Payment', 30], ['event:purchase', 55], ['CancelOrder', 10], ['NotHandled', 5]],
  Payment: [['event:purchase', 85], ['NotHandled', 15]],
  'event:purchase': [['Goodbye', 30], ['TrackOrder', 10], ['end', 60]],
  TrackOrder: [['Delivery', 30], ['Complaint', 15], ['Goodbye', 25], ['end', 30]],
  Delivery: [['Goodbye', 40], ['end', 60]],
  Complaint: [['NotHandled', 30], ['CancelOrder', 20], ['end', 50]],
  CancelOrder: [['Goodbye', 50], ['end', 50]],
  Hours: [['Goodbye', 30], ['Menu', 20], ['end', 50]],
  NotHandled: [['NotHandled', 15], ['Menu', 25], ['end', 60]],
  Goodbye: [['end', 100]],
};

/** What users say for each intent, and what the bot answers (with buttons, and whether it is marked AI-generated). */
const SAYS: Record<string, { say: string[]; reply: string; buttons?: [id: string, label: string][]; ai?: boolean; score: number }> = {
  Greet: { say: ['Hi', 'Hello', 'hey there', 'Good evening', 'Hi!'], reply: 'Hi! I can take an order, show the menu or track a delivery.', buttons: [['order', 'Order'], ['menu', 'Menu'], ['track', 'Track my order']], score: 0.93 },
  Menu: { say: ['What pizzas do you have?', 'Show me the menu', 'menu please', 'What can I order?'], reply: 'Today: Margherita, Pepperoni, Veggie and Quattro Formaggi.', buttons: [['margherita', 'Margherita'], ['pepperoni', 'Pepperoni'], ['veggie', 'Veggie'], ['quattro', 'Quattro Formaggi']], score: 0.88 },
  Recommend: { say: ['What do you recommend?', 'Something spicy?', 'Which one is the best?'], reply: 'The Pepperoni with chili honey is this week\'s favourite.', ai: true, buttons: [['pepperoni', 'Pepperoni']], score: 0.74 },
  Allergens: { say: ['Is the Veggie gluten free?', 'Any nuts in the pesto?', 'Do you have vegan cheese?'], reply: 'The Veggie can be made gluten free; the pesto contains pine nuts.', ai: true, score: 0.71 },
  OrderPizza: { say: ['A large Margherita please', 'I want a pizza', 'Two Pepperoni', 'Order a Veggie'], reply: 'Got it. Anything else, or shall I place the order?', buttons: [['place', 'Place order'], ['add', 'Add another']], score: 0.9 },
  Payment: { say: ['Can I pay by card?', 'Do you take PayPal?', 'pay on delivery?'], reply: 'Card, PayPal or cash on delivery all work.', score: 0.82 },
  TrackOrder: { say: ['Where is my order?', 'Track my pizza', 'How long until it arrives?'], reply: 'Your order left the kitchen; about 15 minutes.', score: 0.91 },
  Delivery: { say: ['Do you deliver to Elm Street?', 'What is the delivery fee?', 'Delivery times?'], reply: 'We deliver within 5 km; free above 20.', score: 0.79 },
  Complaint: { say: ['My pizza arrived cold', 'The order was wrong', 'Still waiting after an hour'], reply: 'I\'m sorry about that. I\'ve flagged it for the shop and added a voucher.', ai: true, score: 0.77 },
  CancelOrder: { say: ['Cancel my order', 'I want to cancel', 'Please cancel it'], reply: 'Your order is cancelled; the refund takes 3 days.', score: 0.86 },
  Hours: { say: ['When are you open?', 'Open on Sunday?', 'Opening hours'], reply: 'Every day from 11:00 to 23:00.', score: 0.94 },
  Goodbye: { say: ['Thanks, bye', 'Thank you!', 'bye'], reply: 'Enjoy your meal!', score: 0.9 },
  NotHandled: { say: ['Do you sell burgers?', 'Weather tomorrow?', 'Can I pay with bitcoin?', 'Is the manager in?', 'Do you have a job for me?', 'wat', 'Can you sing?'], reply: 'Sorry, I only know about pizza.', score: 0.31 },
};

const NAMES = ['Ann Lee', 'Ben Ortiz', 'Chloé Martin', 'Dev Patel', 'Eva Novak', 'Femi Adeyemi', 'Gus Berg', 'Hana Sato', 'Ivo Petrov', 'Jade Wong', 'Kai Müller', 'Lea Rossi', 'Mo Haddad', 'Nia Brown', 'Omar Aziz', 'Pia Larsen', 'Quinn Hart', 'Rosa Díaz', 'Sam Green', 'Tariq Khan'];

const COMMENTS_LIKED = ['Fast and easy', 'Great, thanks!', 'Loved the recommendation', 'So quick', 'Perfect, thank you', 'Very helpful', 'Pizza was hot and on time', 'Easier than calling', 'Nice that it remembers my order', 'Good suggestions'];
const COMMENTS_DISLIKED = ['It did not understand me', 'Took too long', 'Wrong pizza suggested', 'Could not change my address', 'The answer about allergens was vague', 'Kept asking the same thing', 'No option to talk to a person'];

/** One record to send: the tracking query and the body. */
export interface LivePost {
  query: Record<string, string>;
  body: unknown;
}

function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)];
}

function weighted(rand: () => number, next: Next): string {
  const total = next.reduce((sum, [, w]) => sum + w, 0);
  let at = rand() * total;
  for (const [step, w] of next) {
    at -= w;
    if (at < 0) return step;
  }
  return next[next.length - 1][0];
}

interface User {
  id: string;
  name?: string;
  key: string;
  channel: string;
  currency: string | undefined;
}

/**
 * The records of the dataset, each user's in order, for an endpoint that runs at `now`: every
 * record happened before `now`. Users are keyed by id; send each user's records in order.
 */
export function livePosts(now = Date.now(), seed = 20_260_907): Map<string, LivePost[]> {
  const rand = random(seed);
  const thisWeek = Math.floor((now - 4 * DAY) / WEEK) * WEEK + 4 * DAY; // Monday 00:00 UTC
  const firstWeek = thisWeek - (WEEKS - 1) * WEEK;
  const byUser = new Map<string, LivePost[]>();
  let replies = 0;

  const q = (type: string, key: string) => ({ platform: 'universal', v: type === 'event' ? '11.1.0-rest' : '10.1.1-rest', type, apiKey: key });

  /**
   * One session of `user` starting at `start` in `conversation`, following `steps` (or a walk
   * through FLOW). `rating` rates the reply to that step with a comment (and no other is rated).
   */
  const visit = (user: User, start: number, conversation: string, steps?: string[], rating?: { after: string; comment: string }) => {
    const posts = byUser.get(user.id) ?? [];
    byUser.set(user.id, posts);
    let t = start;
    const at = () => new Date(t).toISOString();
    const from = { id: user.id, ...(user.name ? { name: user.name } : {}) };
    const pj = (extra: Record<string, unknown> = {}) => ({ timestamp: at(), channelId: user.channel, conversation: { id: conversation }, ...extra });
    let offered: [string, string][] = [];
    let lastReply = '';
    let lastAi = false;
    let step = 'start';
    const walk = steps ? [...steps] : [];
    for (let n = 0; n < 8; n++) {
      step = steps ? (walk.shift() ?? 'end') : weighted(rand, FLOW[step]);
      if (step === 'end') break;
      t += (1 + Math.floor(rand() * 3)) * MINUTE + Math.floor(rand() * 50_000);
      if (t >= now - MINUTE) break;
      if (step === 'event:purchase') {
        const amount = pick(rand, [8.5, 11, 12.5, 14, 18.9, 23.5, 27, 31.8]);
        posts.push({
          query: q('event', user.key),
          body: {
            type: 'revenueEvent', name: 'purchase', userId: user.id, conversationId: conversation, amount, referenceNumber: `R-${Math.floor(rand() * 90_000 + 10_000)}`,
            metadata: { ...(user.currency ? { currency: user.currency } : {}), timestamp: at() },
          },
        });
        if (!rating && rand() < 0.45) rate();
        continue;
      }
      const said = SAYS[step];
      // A click on a button the bot offered, when one fits.
      const click = offered.length > 0 && (step === 'OrderPizza' || step === 'Menu' || step === 'TrackOrder') && rand() < 0.65
        ? offered.find(([id]) => (step === 'Menu' ? id === 'menu' : step === 'TrackOrder' ? id === 'track' : id !== 'menu' && id !== 'track')) : undefined;
      const score = Math.max(0.05, Math.min(0.99, said.score + (rand() - 0.5) * 0.16));
      posts.push({
        query: q('incoming', user.key),
        body: {
          text: click ? click[1] : pick(rand, said.say), userId: user.id,
          intent: { name: step, inputs: [{ name: 'score', value: score.toFixed(2) }] },
          platformJson: pj({ from }),
          ...(click ? { postback: { buttonClick: { buttonId: click[0] } } } : {}),
        },
      });
      t += 2000 + Math.floor(rand() * 4000);
      lastReply = `reply-${++replies}`;
      lastAi = said.ai === true || (step === 'OrderPizza' && rand() < 0.3);
      offered = said.buttons ?? [];
      posts.push({
        query: q('outgoing', user.key),
        body: {
          text: said.reply, userId: user.id, ...(said.buttons ? { buttons: said.buttons.map(([id, label]) => ({ id, label, value: id })) } : {}),
          platformJson: pj({
            id: lastReply, recipient: from,
            ...(lastAi ? { entities: [{ type: 'https://schema.org/Message', '@type': 'Message', additionalType: ['AIGeneratedContent'] }] } : {}),
          }),
        },
      });
      if (rating ? rating.after === step : lastAi && rand() < 0.35) rate(rating?.comment);
    }

    function rate(given?: string) {
      t += 20_000 + Math.floor(rand() * 60_000);
      const liked = given !== undefined || rand() < 0.72;
      const comment = given ?? (rand() < 0.65 ? pick(rand, liked ? COMMENTS_LIKED : COMMENTS_DISLIKED) : undefined);
      posts.push({
        query: q('event', user.key),
        body: {
          type: 'customEvent', name: 'feedback', userId: user.id, conversationId: conversation,
          extraInfo: { reaction: liked ? 'like' : 'dislike', replyToId: lastReply, timestamp: at(), ...(comment ? { feedbackText: comment } : {}) },
        },
      });
    }
  };

  // A user who shows everything: an order two weeks ago, and one today (or late yesterday) whose recommendation she liked.
  const ann: User = { id: 'ann', name: 'Ann Lee', key: LIVE_PIZZA_KEY, channel: 'webchat', currency: 'EUR' };
  visit(ann, Math.max(thisWeek, now - 3 * DAY) - 14 * DAY, 'c-ann-1', ['Greet', 'Menu', 'OrderPizza', 'event:purchase']);
  visit(ann, Math.min(now - 2 * HOUR, Math.max(thisWeek + 10 * HOUR, now - 20 * HOUR)), SHOWCASE_CONVERSATION,
    ['Greet', 'Recommend', 'OrderPizza', 'event:purchase', 'Goodbye'], { after: 'Recommend', comment: 'Loved the recommendation' });

  let serial = 0;
  for (let week = 0; week < WEEKS; week++) {
    const arrivals = 3 + Math.floor(week * 0.6) + Math.floor(rand() * 3);
    for (let a = 0; a < arrivals; a++) {
      serial++;
      const support = rand() < 0.15;
      const named = rand() < 0.6;
      const user: User = {
        id: `u${(serial * 7919 % 100_000).toString(36)}${serial}`,
        // A first and a last name of the list, no two users the same (nor Ann Lee's).
        name: named ? `${NAMES[serial % NAMES.length].split(' ')[0]} ${NAMES[(Math.floor(serial / NAMES.length) + 3 * serial) % NAMES.length].split(' ')[1]}` : undefined,
        key: support ? LIVE_SUPPORT_KEY : LIVE_PIZZA_KEY,
        channel: weighted(rand, [['webchat', 60], ['msteams', 28], ['slack', 12]]),
        currency: weighted(rand, [['EUR', 68], ['USD', 13], ['GBP', 11], ['', 8]]) || undefined,
      };
      let visits = 0;
      for (let w = week; w < WEEKS; w++) {
        const back = w === week || rand() < 0.42 * 0.82 ** (w - week - 1);
        if (!back) continue;
        const start = firstWeek + w * WEEK + Math.floor(rand() * 7) * DAY + (8 + Math.floor(rand() * 13)) * HOUR + Math.floor(rand() * 60) * MINUTE;
        if (start >= now - 30 * MINUTE) continue;
        visits++;
        visit(user, start, `c-${user.id}-${visits}`);
        // Now and then a second session the same day, in the same conversation.
        if (rand() < 0.12 && start + 3 * HOUR < now) visit(user, start + 2 * HOUR + Math.floor(rand() * HOUR), `c-${user.id}-${visits}`);
      }
    }
  }
  return byUser;
}

/** Sends the dataset to the endpoint at `url`: users side by side, each user's records in order. Fails on any refusal. */
export async function loadLiveDataset(url: string, now = Date.now()): Promise<number> {
  const users = [...livePosts(now).values()];
  let sent = 0;
  const lane = async () => {
    for (let posts = users.pop(); posts; posts = users.pop()) {
      for (const { query, body } of posts) {
        const res = await fetch(`${url}/track?${new URLSearchParams(query)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        if (res.status !== 200) throw new Error(`the endpoint refused a live dataset record (${res.status}): ${await res.text()}`);
        sent++;
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, lane));
  return sent;
}
