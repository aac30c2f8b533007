// A shop assistant on the Microsoft 365 Agents SDK: an AgentApplication whose routes show what the
// tracking middleware records. index.mjs hosts it with the SDK's express host; the tests host the
// same agent on a port of their own.
import { AgentApplication, CardFactory, MemoryStorage, MessageFactory } from '@microsoft/agents-hosting';
import { setIntent, trackEvent } from 'botbuilder-conversation-analytics';

/** The Adaptive Card the agent sends for "menu": a title, an image and two buttons. */
export const MENU_CARD = {
  type: 'AdaptiveCard',
  $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
  version: '1.5',
  body: [
    { type: 'TextBlock', text: "Today's menu", weight: 'Bolder', size: 'Medium' },
    { type: 'Image', url: 'https://example.com/images/menu.png', altText: 'The menu' },
  ],
  actions: [
    { type: 'Action.Submit', title: 'Pizza', data: { order: 'pizza' } },
    { type: 'Action.Submit', title: 'Salad', data: { order: 'salad' } },
  ],
};

/** The Schema.org message entity that marks a reply as AI-generated, with one citation. */
export function aiGeneratedEntity() {
  return {
    type: 'https://schema.org/Message',
    '@type': 'Message',
    '@context': 'https://schema.org',
    '@id': '',
    additionalType: ['AIGeneratedContent'],
    citation: [
      {
        '@type': 'Claim',
        position: 1,
        appearance: { '@type': 'DigitalDocument', name: 'Opening hours', abstract: 'Open 11:00 to 22:00 every day.', url: 'https://example.com/hours' },
      },
    ],
  };
}

/**
 * Builds the agent. Its adapter is the AgentApplication's own CloudAdapter: add the tracking
 * middleware to it with `agent.adapter.use(new TrackingMiddleware())`.
 */
export function createAgent() {
  const agent = new AgentApplication({ storage: new MemoryStorage() });

  agent.onConversationUpdate('membersAdded', async (context) => {
    for (const member of context.activity.membersAdded ?? []) {
      if (member.id !== context.activity.recipient?.id) await context.sendActivity('Welcome to the shop! Say menu, order pizza, hours or explain.');
    }
  });

  // An Adaptive Card reply.
  agent.onMessage(/^menu$/i, async (context) => {
    setIntent(context, 'ShowMenu');
    await context.sendActivity(MessageFactory.attachment(CardFactory.adaptiveCard(MENU_CARD)));
  });

  // An intent and a business event from the same turn.
  agent.onMessage(/^order (\w+)$/i, async (context) => {
    const dish = /^order (\w+)$/i.exec(context.activity.text ?? '')[1].toLowerCase();
    setIntent(context, { name: 'Order', inputs: [{ name: 'dish', value: dish }] });
    trackEvent(context, { type: 'revenueEvent', name: 'order', amount: 9.5, currency: 'EUR', metadata: { dish } });
    await context.sendActivity(`One ${dish}, coming up.`);
  });

  // A reply marked AI-generated, with a citation (what an LLM-backed agent sends).
  agent.onMessage(/^hours$/i, async (context) => {
    const reply = MessageFactory.text('We are open from 11:00 to 22:00 every day [1].');
    reply.entities = [aiGeneratedEntity()];
    reply.channelData = { feedbackLoopEnabled: true };
    await context.sendActivity(reply);
  });

  // A streamed reply: interim updates, then the final message with the whole text.
  agent.onMessage(/^explain$/i, async (context) => {
    const stream = context.streamingResponse;
    stream.setDelayInMs(10);
    stream.setGeneratedByAILabel(true);
    stream.queueInformativeUpdate('Looking that up…');
    for (const chunk of ['Our dough ', 'rests for ', '48 hours.']) stream.queueTextChunk(chunk);
    await stream.endStream();
  });

  // Thumbs up or down on a reply (Teams' feedback invoke): answered here, recorded by the middleware.
  agent.onActivity('invoke', async (context) => {
    await context.sendActivity({ type: 'invokeResponse', value: { status: 200, body: {} } });
  });

  agent.onActivity('message', async (context) => {
    setIntent(context, 'NotHandled');
    await context.sendActivity(`Sorry, I don't know "${context.activity.text}" yet. Say menu, order pizza, hours or explain.`);
  });

  return agent;
}
