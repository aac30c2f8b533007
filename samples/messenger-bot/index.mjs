// A bot on the messenger (facebook) channel, on CloudAdapter over HTTP.
//   TRACKING_API_KEY=... TRACKING_BASE_URL=http://127.0.0.1:3979 npm run sample:messenger
// In Azure, connect the bot's Facebook channel; locally the Emulator's channel is treated as
// messenger too, so you can see messenger-shaped records without a Facebook page.
import { CloudAdapter, ConfigurationBotFrameworkAuthentication } from 'botbuilder';
import { defaultPlatformForChannel, TrackingMiddleware } from 'botbuilder-conversation-analytics';
import { onTurnError, startBotServer } from '../lib/bot-server.mjs';
import { MessengerBot } from './bot.mjs';

const adapter = new CloudAdapter(new ConfigurationBotFrameworkAuthentication({ MicrosoftAppId: process.env.MicrosoftAppId ?? '', MicrosoftAppPassword: process.env.MicrosoftAppPassword ?? '' }));
onTurnError(adapter);

const tracking = new TrackingMiddleware({
  platformForChannel: (channelId) => (channelId === 'emulator' ? 'messenger' : defaultPlatformForChannel(channelId)),
  // Recorded as qs.access_token in outgoing records only when you set it; never logged.
  messengerAccessToken: process.env.FACEBOOK_PAGE_ACCESS_TOKEN,
});
adapter.use(tracking);

const { url, close } = await startBotServer({ adapter, bot: new MessengerBot(), port: Number(process.env.PORT ?? 3978) });
console.log(`Messenger bot listening on ${url}`);

async function shutdown() {
  await close();
  await tracking.client.close();
  process.exit(0);
}
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
