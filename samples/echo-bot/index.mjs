// Echo bot on CloudAdapter over HTTP, with conversation analytics.
//   TRACKING_API_KEY=... TRACKING_BASE_URL=http://127.0.0.1:3979 npm run sample:echo
// then talk to it with the Bot Framework Emulator at http://127.0.0.1:3978/api/messages (no app id).
import { TrackingMiddleware } from 'botbuilder-conversation-analytics';
import { createCloudAdapter, startBotServer } from '../lib/bot-server.mjs';
import { EchoBot } from './bot.mjs';

// Authenticated from the environment the way botbuilder's samples are (ConfigurationBotFrameworkAuthentication):
// MicrosoftAppType (MultiTenant, SingleTenant or UserAssignedMSI), MicrosoftAppId,
// MicrosoftAppPassword and MicrosoftAppTenantId (for SingleTenant). Without MicrosoftAppId
// authentication is skipped, which is fine for local use (the Emulator) only.
const adapter = createCloudAdapter();

// Reads TRACKING_API_KEY and TRACKING_BASE_URL; throws a TrackingConfigError saying what to set when they are missing.
// On SIGTERM or SIGINT (closeOnSignals) the client delivers what is queued within TRACKING_CLOSE_TIMEOUT_MS
// (default 5 s), writes one line to stderr with what it delivered and what it could not, and lets the
// signal end the process. Messages that arrive meanwhile are still answered, but no longer tracked
// (they count as dropped in that line).
const tracking = new TrackingMiddleware({
  clientOptions: { closeOnSignals: true, closeTimeoutMs: Number(process.env.TRACKING_CLOSE_TIMEOUT_MS) || 5_000 },
});
adapter.use(tracking);

const { url } = await startBotServer({ adapter, bot: new EchoBot(), port: Number(process.env.PORT ?? 3978) });
console.log(`Echo bot listening on ${url}`);
