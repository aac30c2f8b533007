// A bot with intents from an offline recognizer, on CloudAdapter over HTTP.
//   TRACKING_API_KEY=... TRACKING_BASE_URL=http://127.0.0.1:3979 npm run sample:intents
import { CloudAdapter, ConfigurationBotFrameworkAuthentication } from 'botbuilder';
import { TrackingMiddleware } from 'botbuilder-conversation-analytics';
import { onTurnError, startBotServer } from '../lib/bot-server.mjs';
import { IntentBot } from './bot.mjs';

const adapter = new CloudAdapter(new ConfigurationBotFrameworkAuthentication({ MicrosoftAppId: process.env.MicrosoftAppId ?? '', MicrosoftAppPassword: process.env.MicrosoftAppPassword ?? '' }));
onTurnError(adapter);

// Intents scoring below 0.5 are not recorded (the recognizer gives "None" 0.1).
const tracking = new TrackingMiddleware({ minIntentScore: 0.5 });
adapter.use(tracking);

const { url, close } = await startBotServer({ adapter, bot: new IntentBot(), port: Number(process.env.PORT ?? 3978) });
console.log(`Intent bot listening on ${url}`);

async function shutdown() {
  await close();
  await tracking.client.close();
  process.exit(0);
}
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
