// A bot on the messenger (facebook) channel, on CloudAdapter over HTTP.
//   TRACKING_API_KEY=... TRACKING_BASE_URL=http://127.0.0.1:3979 npm run sample:messenger
// In Azure, connect the bot's Facebook channel; locally the Emulator's channel is treated as
// messenger too, so you can see messenger-shaped records without a Facebook page.
import { defaultPlatformForChannel, TrackingMiddleware } from 'botbuilder-conversation-analytics';
import { createCloudAdapter, shutDownOnSignals, startBotServer } from '../lib/bot-server.mjs';
import { MessengerBot } from './bot.mjs';

const adapter = createCloudAdapter(); // MicrosoftAppType/Id/Password/TenantId from the environment; none: local use only

const tracking = new TrackingMiddleware({
  platformForChannel: (channelId) => (channelId === 'emulator' ? 'messenger' : defaultPlatformForChannel(channelId)),
  // Recorded as qs.access_token in outgoing records only when you set it; never logged.
  messengerAccessToken: process.env.FACEBOOK_PAGE_ACCESS_TOKEN,
});
adapter.use(tracking);

const server = await startBotServer({ adapter, bot: new MessengerBot(), port: Number(process.env.PORT ?? 3978) });
console.log(`Messenger bot listening on ${server.url}`);
shutDownOnSignals(server, tracking);
