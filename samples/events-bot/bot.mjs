// A shop bot that records revenue, share and custom events with trackEvent. trackEvent fills in
// the user and the conversation from the turn, never waits and never throws.
import { ActivityHandler } from 'botbuilder';
import { trackEvent } from 'botbuilder-conversation-analytics';

const PRICES = { coffee: 3.5, tea: 2.75, cake: 4.2 };

export class ShopBot extends ActivityHandler {
  constructor() {
    super();
    let orders = 0;
    this.onMessage(async (context, next) => {
      const text = (context.activity.text ?? '').trim().toLowerCase();
      const buy = /^buy (\w+)$/.exec(text);
      if (buy && PRICES[buy[1]] !== undefined) {
        const product = buy[1];
        orders += 1;
        trackEvent(context, {
          type: 'revenueEvent',
          name: 'purchase',
          amount: PRICES[product],
          referenceNumber: `order-${orders}`,
          currency: 'EUR',
          metadata: { product },
        });
        await context.sendActivity(`Thanks! One ${product}, that is ${PRICES[product].toFixed(2)} EUR.`);
      } else if (text.startsWith('share')) {
        trackEvent(context, { type: 'shareEvent', name: 'shared-menu', sharedMessage: { text: 'Our menu: https://example.com/menu' } });
        await context.sendActivity('Shared the menu. Thanks for spreading the word!');
      } else {
        trackEvent(context, { type: 'customEvent', name: 'browsed', extraInfo: { said: text } });
        await context.sendActivity(`We sell ${Object.keys(PRICES).join(', ')}. Say "buy coffee", or "share".`);
      }
      await next();
    });
  }
}
