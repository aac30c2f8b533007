export interface SentActivity {
  conversationId: string;
  /** Set for a reply (`replyToActivity`); undefined for `sendToConversation` (proactive messages). */
  replyToId: string | undefined;
  /** The id the service answered with. */
  id: string;
  activity: any;
}

export interface ChannelService {
  /** The serviceUrl to put in incoming activities, e.g. http://127.0.0.1:40123/ */
  url: string;
  /** Activities the bot sent, in arrival order. */
  sent: SentActivity[];
  close(): Promise<void>;
}

export function startChannelService(idPrefix?: string): Promise<ChannelService>;
