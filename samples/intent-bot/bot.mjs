// A bot that answers by intent. The recognizer's trace gives each incoming message its intent in
// the analytics records; nothing else is needed. (To set one yourself, call setIntent(context, ...).)
import { ActivityHandler } from 'botbuilder';
import { KeywordRecognizer, topIntent } from './recognizer.mjs';

const REPLIES = {
  Greeting: () => 'Hello! I can book flights and tell you the weather.',
  BookFlight: (e) => (e.city ? `Booking a flight to ${e.city}${e.date ? ` for ${e.date}` : ''}.` : 'Where would you like to fly to?'),
  Weather: (e) => (e.city ? `It is sunny in ${e.city}.` : 'Which city?'),
  Help: () => 'Try "book a flight to Paris tomorrow" or "weather in Oslo".',
  None: () => "Sorry, I didn't get that. Say help for ideas.",
};

/** The text the user typed for each entity (first one of each). */
function entityTexts(result) {
  const texts = {};
  for (const [name, instances] of Object.entries(result.entities.$instance ?? {})) texts[name] = instances[0]?.text;
  return texts;
}

export class IntentBot extends ActivityHandler {
  constructor(recognizer = new KeywordRecognizer()) {
    super();
    this.onMessage(async (context, next) => {
      const result = await recognizer.recognize(context);
      const reply = REPLIES[topIntent(result)] ?? REPLIES.None;
      await context.sendActivity(reply(entityTexts(result)));
      await next();
    });
  }
}
