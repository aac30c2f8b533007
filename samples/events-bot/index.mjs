// A bot that sends revenue and custom events, on CloudAdapter over HTTP.
//   TRACKING_API_KEY=... TRACKING_BASE_URL=http://127.0.0.1:3979 npm run sample:events
import { CloudAdapter, ConfigurationBotFrameworkAuthentication } from 'botbuilder';
import { TrackingMiddleware } from 'botbuilder-conversation-analytics';
import { onTurnError, startBotServer } from '../lib/bot-server.mjs';
import { ShopBot } from './bot.mjs';

const adapter = new CloudAdapter(new ConfigurationBotFrameworkAuthentication({ MicrosoftAppId: process.env.MicrosoftAppId ?? '', MicrosoftAppPassword: process.env.MicrosoftAppPassword ?? '' }));
onTurnError(adapter);

const tracking = new TrackingMiddleware();
adapter.use(tracking);

const { url, close } = await startBotServer({ adapter, bot: new ShopBot(), port: Number(process.env.PORT ?? 3978) });
console.log(`Shop bot listening on ${url}`);

async function shutdown() {
  await close();
  await tracking.client.close();
  process.exit(0);
}
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
