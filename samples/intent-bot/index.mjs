// A bot with intents from an offline recognizer, on CloudAdapter over HTTP.
//   TRACKING_API_KEY=... TRACKING_BASE_URL=http://127.0.0.1:3979 npm run sample:intents
import { TrackingMiddleware } from 'botbuilder-conversation-analytics';
import { createCloudAdapter, shutDownOnSignals, startBotServer } from '../lib/bot-server.mjs';
import { IntentBot } from './bot.mjs';

const adapter = createCloudAdapter(); // MicrosoftAppType/Id/Password/TenantId from the environment; none: local use only

// An intent scoring below 0.5, or "None" (the recognizer gives it 0.1), is recorded as NotHandled,
// with the recognizer's intent and score as inputs.
const tracking = new TrackingMiddleware({ minIntentScore: 0.5 });
adapter.use(tracking);

const server = await startBotServer({ adapter, bot: new IntentBot(), port: Number(process.env.PORT ?? 3978) });
console.log(`Intent bot listening on ${server.url}`);
shutDownOnSignals(server, tracking);
