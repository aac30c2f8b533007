// An agent on the Microsoft 365 Agents SDK, hosted by its express host, with conversation analytics.
//   TRACKING_API_KEY=... TRACKING_BASE_URL=http://127.0.0.1:3979 npm run sample:agent
// then talk to it with the Microsoft 365 Agents Playground or the Bot Framework Emulator at
// http://127.0.0.1:3978/api/messages (PORT changes the port).
//
// Authentication is the SDK's own, read from the environment the way its samples do
// (connections__serviceConnection__settings__clientId, __clientSecret, __tenantId, or the older
// clientId / clientSecret / tenantId). Without a client id the agent runs anonymously: local use only.
import { startServer } from '@microsoft/agents-hosting-express';
import { TrackingMiddleware } from 'botbuilder-conversation-analytics';
import { createAgent } from './agent.mjs';

const agent = createAgent();

// Reads TRACKING_API_KEY and TRACKING_BASE_URL; throws a TrackingConfigError saying what to set when
// they are missing. On SIGTERM or SIGINT the client delivers what is queued, then lets the signal
// end the process.
agent.adapter.use(new TrackingMiddleware({ clientOptions: { closeOnSignals: true } }));

startServer(agent);
