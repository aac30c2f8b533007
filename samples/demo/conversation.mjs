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

const ada = { id: 'user-ada', name: 'Ada' };
const grace = { id: 'user-grace', name: 'Grace' };
const linus = { id: '2718281828', name: 'Linus' };

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
];
