// The echo bot's logic: it greets new members and repeats what the user says.
import { ActivityHandler, MessageFactory } from 'botbuilder';

export class EchoBot extends ActivityHandler {
  constructor() {
    super();
    this.onMessage(async (context, next) => {
      const text = context.activity.text ?? '';
      await context.sendActivity(MessageFactory.text(`Echo: ${text}`));
      await next();
    });
    this.onMembersAdded(async (context, next) => {
      for (const member of context.activity.membersAdded ?? []) {
        if (member.id !== context.activity.recipient.id) await context.sendActivity('Hello! Say something and I will echo it.');
      }
      await next();
    });
  }
}
