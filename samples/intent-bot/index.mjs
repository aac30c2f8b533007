// A bot with intents from an offline recognizer, on CloudAdapter over HTTP.
//   TRACKING_API_KEY=... TRACKING_BASE_URL=http://127.0.0.1:3979 npm run sample:intents
import { TrackingMiddleware } from 'botbuilder-conversation-analytics';
import { createCloudAdapter, shutDownOnSignals, startBotServer } from '../lib/bot-server.mjs';
import { IntentBot } from './bot.mjs';

const adapter = createCloudAdapter(); // no MicrosoftAppId in the environment: local use only

// Intents scoring below 0.5 are not recorded (the recognizer gives "None" 0.1).
const tracking = new TrackingMiddleware({ minIntentScore: 0.5 });
adapter.use(tracking);

const server = await startBotServer({ adapter, bot: new IntentBot(), port: Number(process.env.PORT ?? 3978) });
console.log(`Intent bot listening on ${server.url}`);
shutDownOnSignals(server, tracking);
