// A bot that sends revenue and custom events, on CloudAdapter over HTTP.
//   TRACKING_API_KEY=... TRACKING_BASE_URL=http://127.0.0.1:3979 npm run sample:events
import { TrackingMiddleware } from 'botbuilder-conversation-analytics';
import { createCloudAdapter, shutDownOnSignals, startBotServer } from '../lib/bot-server.mjs';
import { ShopBot } from './bot.mjs';

const adapter = createCloudAdapter(); // MicrosoftAppType/Id/Password/TenantId from the environment; none: local use only

const tracking = new TrackingMiddleware();
adapter.use(tracking);

const server = await startBotServer({ adapter, bot: new ShopBot(), port: Number(process.env.PORT ?? 3978) });
console.log(`Shop bot listening on ${server.url}`);
shutDownOnSignals(server, tracking);
