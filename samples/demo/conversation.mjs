// The demo's scripted users: what they say, on which channel. Each step is one activity that a
// channel would POST to the bot's /api/messages.

const BOT = { id: 'pizza-bot', name: 'PizzaBot' };
const PAGE_ID = '1029384756';

let sequence = 0;

function webchat(user, text, extra = {}) {
  return {
    type: 'message',
    channelId: 'webchat',
    from: { id: user.id, name: user.name },
    recipient: BOT,
    conversation: { id: `conv-${user.id}` },
    text,
    ...extra,
  };
}

function messenger(user, text) {
  const timestamp = Date.now();
  const mid = `m_demo_${++sequence}`;
  return {
    type: 'message',
    channelId: 'facebook',
    from: { id: user.id, name: user.name },
    recipient: { id: PAGE_ID, name: 'Pizza Page' },
    conversation: { id: `${user.id}-${PAGE_ID}` },
    text,
    // The facebook channel passes the platform's original messaging event along in channelData.
    channelData: { sender: { id: user.id }, recipient: { id: PAGE_ID }, timestamp, message: { mid, seq: sequence, text } },
  };
}

// A Teams user in a personal chat. Teams puts thumbs up and down under a reply that has the
// feedback loop on; pressing one sends the bot an invoke, `message/submitAction` with
// `actionName: 'feedback'`, whose `replyToId` is the rated reply's id (the one the channel gave it).
const TENANT = '72f988bf-0000-4000-8000-00000000c0de';

function teams(user, text) {
  return {
    type: 'message',
    channelId: 'msteams',
    from: { id: user.id, name: user.name, aadObjectId: user.aadObjectId },
    recipient: BOT,
    conversation: { id: user.chat, conversationType: 'personal', tenantId: TENANT },
    channelData: { tenant: { id: TENANT } },
    text,
  };
}

/** Marks a step that rates the bot's last reply in its conversation: `prepare` fills in its `replyToId`. */
export const RATES_LAST_REPLY = Symbol('rates the last reply');

function teamsFeedback(user, reaction, comment) {
  return {
    ...teams(user, undefined),
    type: 'invoke',
    name: 'message/submitAction',
    // What Teams sends: the reaction, and what the user wrote as a JSON string.
    value: { actionName: 'feedback', actionValue: { reaction, feedback: JSON.stringify({ feedbackText: comment }) } },
    [RATES_LAST_REPLY]: true,
  };
}

/**
 * The activity to post for a step: a rating gets the id of the bot's last reply in its
 * conversation as `replyToId`, as Teams sends it. `sent` is what the channel service received,
 * `{ conversationId, id, activity }` each (samples/lib/channel-service.mjs).
 */
export function prepare(step, sent) {
  if (!step[RATES_LAST_REPLY]) return step;
  const reply = sent.findLast((s) => s.conversationId === step.conversation.id && s.activity?.type === 'message');
  return reply === undefined ? step : { ...step, replyToId: reply.id };
}

/** How a step reads in the demo's output: the text, or a rating as `[thumbs up] comment`. */
export function describeStep(step) {
  if (step.type !== 'invoke') return step.text;
  const { reaction, feedback } = step.value.actionValue;
  return `[thumbs ${reaction === 'like' ? 'up' : 'down'}] ${JSON.parse(feedback).feedbackText}`;
}

const ada = { id: 'user-ada', name: 'Ada' };
const grace = { id: 'user-grace', name: 'Grace' };
const linus = { id: '2718281828', name: 'Linus' };
const mei = { id: '29:1f4c-mei', name: 'Mei', aadObjectId: '5b1d7e2a-0000-4000-8000-0000000000e1', chat: 'a:1mei-personal' };

/** The scripted conversation, in order. */
export const SCRIPT = [
  webchat(ada, 'hi there'),
  webchat(ada, 'show me the menu'),
  // A click on the card's button: messageBack sends the button's text and value.
  webchat(ada, 'order margherita', { value: 'order margherita' }),
  webchat(ada, 'can you sing?'),
  webchat(grace, 'hello'),
  webchat(grace, 'I want to order a large pepperoni'),
  messenger(linus, 'hey'),
  messenger(linus, 'menu please'),
  messenger(linus, 'order pepperoni'),
  // Mei, on Teams, rates two replies: the help (thumbs up) and the AI-generated fallback (thumbs down).
  teams(mei, 'what can you do?'),
  teamsFeedback(mei, 'like', 'Clear, thanks'),
  teams(mei, 'do you have vegan cheese?'),
  teamsFeedback(mei, 'dislike', 'It did not answer my question'),
];
