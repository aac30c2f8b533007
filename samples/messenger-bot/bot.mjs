// A bot for the messenger (facebook) channel: text, a card with an image and buttons, and quick replies.
// On the facebook channel the analytics records use the messenger platform's shapes: the webhook
// payload the channel passed in channelData for incoming messages, the send request and the
// channel's message id for outgoing ones.
import { ActivityHandler, CardFactory, MessageFactory } from 'botbuilder';

const MENU_IMAGE = 'https://example.com/images/menu.png';

export class MessengerBot extends ActivityHandler {
  constructor() {
    super();
    this.onMessage(async (context, next) => {
      const text = (context.activity.text ?? '').trim().toLowerCase();
      if (text === 'menu') {
        const card = CardFactory.heroCard('Today', 'Pick a dish', [MENU_IMAGE], [
          { type: 'postBack', title: 'Pizza', value: 'order pizza' },
          { type: 'postBack', title: 'Salad', value: 'order salad' },
        ]);
        await context.sendActivity(MessageFactory.attachment(card));
      } else if (text.startsWith('order ')) {
        await context.sendActivity(`One ${text.slice(6)} coming up!`);
      } else {
        await context.sendActivity(MessageFactory.suggestedActions(['menu', 'help'], 'Hi! Type menu to see what we have.'));
      }
      await next();
    });
  }
}
