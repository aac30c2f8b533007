// The demo's agent: a pizza shop on the Microsoft 365 Agents SDK (an AgentApplication). It shows
// every kind of record the analytics middleware produces: intents from a recognizer (the offline
// KeywordRecognizer, so no cloud keys), a card with an image and buttons, a button click, a revenue
// event, and messages the router could not handle, answered by a (canned) generative fallback
// whose reply is marked AI-generated; on Teams, replies offer thumbs up and down (the feedback
// loop), and a user's rating arrives as Teams' feedback invoke, answered here and recorded by the
// middleware.
import { AgentApplication, CardFactory, MemoryStorage, MessageFactory } from '@microsoft/agents-hosting';
import { setIntent, trackEvent } from 'botbuilder-conversation-analytics';
import { KeywordRecognizer, topIntent } from '../intent-bot/recognizer.mjs';

export const MENU = {
  margherita: { price: 9.5, image: 'https://example.com/images/margherita.png' },
  pepperoni: { price: 11, image: 'https://example.com/images/pepperoni.png' },
};

const MODEL = {
  Greeting: { pattern: /\b(hi|hello|hey)\b/i, entities: {} },
  ShowMenu: { pattern: /\b(menu|pizzas?)\b(?!.*\border\b)/i, entities: {} },
  OrderPizza: { pattern: /\border\b/i, entities: { pizza: /\b(margherita|pepperoni)\b/i, size: /\b(small|medium|large)\b/i } },
  Help: { pattern: /\b(help|what can you do)\b/i, entities: {} },
};

function menuCard() {
  const [first] = Object.values(MENU);
  return CardFactory.heroCard(
    'Our pizzas',
    'Tap one to order it',
    [first.image],
    Object.entries(MENU).map(([name, { price }]) => ({ type: 'messageBack', title: `${name} (${price.toFixed(2)} EUR)`, text: `order ${name}`, value: `order ${name}` })),
  );
}

/** The Schema.org entity that marks a reply as AI-generated (what the Agents SDK's addAIToActivity adds). */
const AI_GENERATED = { type: 'https://schema.org/Message', '@type': 'Message', '@context': 'https://schema.org', '@id': '', additionalType: ['AIGeneratedContent'] };

/**
 * The pizza agent. Add the tracking middleware to its adapter:
 * `createPizzaAgent().adapter.use(new TrackingMiddleware())`.
 */
export function createPizzaAgent(recognizer = new KeywordRecognizer(MODEL)) {
  const agent = new AgentApplication({ storage: new MemoryStorage() });
  let orders = 0;
  // Thumbs up or down on a reply (Teams' feedback invoke, `message/submitAction`): answered with 200.
  agent.onActivity('invoke', async (context) => {
    await context.sendActivity({ type: 'invokeResponse', value: { status: 200, body: {} } });
  });
  agent.onActivity('message', async (context) => {
    // On Teams every reply has the feedback loop on, so users can rate it.
    const onTeams = context.activity.channelId === 'msteams';
    const send = (reply) => {
      if (!onTeams) return context.sendActivity(reply);
      const activity = typeof reply === 'string' ? MessageFactory.text(reply) : reply;
      activity.channelData = { ...activity.channelData, feedbackLoopEnabled: true };
      return context.sendActivity(activity);
    };
    const result = await recognizer.recognize(context); // its trace gives the record its intent
    const intent = topIntent(result);
    if (intent === 'Greeting') {
      await send(MessageFactory.suggestedActions(['menu', 'help'], 'Hello! Want to see the menu?'));
    } else if (intent === 'ShowMenu') {
      await send(MessageFactory.attachment(menuCard()));
    } else if (intent === 'OrderPizza') {
      const pizza = result.entities.pizza?.[0];
      if (pizza === undefined) {
        await send('Which pizza? Say "menu" to see them.');
      } else {
        orders += 1;
        trackEvent(context, {
          type: 'revenueEvent',
          name: 'pizza-order',
          amount: MENU[pizza].price,
          referenceNumber: `order-${orders}`,
          currency: 'EUR',
          metadata: { pizza },
        });
        await send(`One ${pizza} coming up: ${MENU[pizza].price.toFixed(2)} EUR. Thank you!`);
      }
    } else if (intent === 'Help') {
      await send('Say "menu" to see our pizzas, then tap one to order it.');
    } else {
      // Mark what the router could not handle, so the analytics show it; a generative fallback
      // (canned here) answers, and its reply says it is AI-generated.
      setIntent(context, { name: 'NotHandled', inputs: [] });
      const reply = MessageFactory.text("I'm only a pizza shop assistant, so I can't help with that. Say help for ideas.");
      reply.entities = [AI_GENERATED];
      await send(reply);
    }
  });
  return agent;
}
