/**
 * The fake Bot Framework channel service the samples' demo uses, for tests: it answers
 * `POST /v3/conversations/{id}/activities[/{replyToId}]` with `{"id": "…"}` and records what the bot sent.
 */
export { startChannelService, type ChannelService, type SentActivity } from '../../samples/lib/channel-service.mjs';
