// The demo's bot: a pizza shop. It shows every kind of record the analytics middleware produces:
// intents from a recognizer (the offline KeywordRecognizer, so no cloud keys), a card with an image
// and buttons, a button click, a revenue event, and messages the bot could not handle.
import { ActivityHandler, CardFactory, MessageFactory } from 'botbuilder';
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

export class PizzaBot extends ActivityHandler {
  constructor(recognizer = new KeywordRecognizer(MODEL)) {
    super();
    let orders = 0;
    this.onMessage(async (context, next) => {
      const result = await recognizer.recognize(context); // its trace gives the record its intent
      const intent = topIntent(result);
      if (intent === 'Greeting') {
        await context.sendActivity(MessageFactory.suggestedActions(['menu', 'help'], 'Hello! Want to see the menu?'));
      } else if (intent === 'ShowMenu') {
        await context.sendActivity(MessageFactory.attachment(menuCard()));
      } else if (intent === 'OrderPizza') {
        const pizza = result.entities.pizza?.[0];
        if (pizza === undefined) {
          await context.sendActivity('Which pizza? Say "menu" to see them.');
        } else {
          orders += 1;
          trackEvent(context, {
            type: 'revenueEvent',
            name: 'pizza-order',
            amount: MENU[pizza].price,
            referenceNumber: `order-${orders}`,
            metadata: { pizza, currency: 'EUR' },
          });
          await context.sendActivity(`One ${pizza} coming up: ${MENU[pizza].price.toFixed(2)} EUR. Thank you!`);
        }
      } else if (intent === 'Help') {
        await context.sendActivity('Say "menu" to see our pizzas, then tap one to order it.');
      } else {
        // Mark what the bot could not handle, so the analytics show it.
        setIntent(context, { name: 'NotHandled', inputs: [] });
        await context.sendActivity("Sorry, I didn't get that. Say help for ideas.");
      }
      await next();
    });
  }
}
