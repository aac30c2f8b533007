/**
 * The small part of a bot SDK the middleware uses, described structurally, so that the package
 * works with (and type-checks against) the Microsoft 365 Agents SDK (`@microsoft/agents-hosting`)
 * and botbuilder 4.x alike, with neither installed. Both SDKs' `TurnContext`, `Activity`,
 * `ResourceResponse` and `RecognizerResult` fit these shapes; nothing here is loaded at run time.
 *
 * Every field is optional and read defensively: channels and adapters send what they send
 * (a numeric `from.id`, a `null` text), and the mappers check each value's type before using it.
 */

/** A user, a bot or a page on a channel (`from`, `recipient`). */
export interface ChannelAccountLike {
  id?: string;
  name?: string;
  /** `user` or `bot` (botbuilder's `RoleTypes`), as the channel sets it. */
  role?: string;
}

/** The conversation an activity belongs to. */
export interface ConversationAccountLike {
  id?: string;
  name?: string;
}

/** A button: a card action or a suggested action. */
export interface CardActionLike {
  type?: string;
  title?: string;
  value?: unknown;
  text?: string;
  displayText?: string;
}

/** An attachment: a card (`content`) or media (`contentUrl`). */
export interface AttachmentLike {
  contentType?: string;
  contentUrl?: string;
  content?: unknown;
  name?: string;
}

/** An entity of an activity (mentions, `streaminfo`, the AI-generated `https://schema.org/Message`, …). */
export interface EntityLike {
  type?: string;
}

/**
 * An activity, as both SDKs have it: botbuilder's `Activity` interface and the Agents SDK's
 * `Activity` class (whose `channelId` is a getter over a private field).
 */
export interface ActivityLike {
  type?: string;
  id?: string;
  timestamp?: Date | string;
  channelId?: string;
  serviceUrl?: string;
  from?: ChannelAccountLike;
  recipient?: ChannelAccountLike;
  conversation?: ConversationAccountLike;
  text?: string;
  value?: unknown;
  valueType?: string;
  name?: string;
  label?: string;
  replyToId?: string;
  membersAdded?: ChannelAccountLike[];
  membersRemoved?: ChannelAccountLike[];
  attachments?: AttachmentLike[];
  suggestedActions?: { actions?: CardActionLike[] };
  channelData?: unknown;
  entities?: EntityLike[];
}

/** What a channel answers for a sent activity. */
export interface ResourceResponseLike {
  id: string;
}

/** A recognizer's result (LUIS, CLU, Orchestrator, or any recognizer in botbuilder's shape). */
export interface RecognizerResultLike {
  text?: string;
  /** Intent names with their scores. */
  intents: Record<string, { score?: number } | undefined>;
  /** Entities by name, with `$instance` holding the text the user typed for each. */
  entities?: unknown;
}

/** The turn-scoped state collection of a turn context (`context.turnState`). */
export interface TurnStateLike {
  get(key: any): any;
  set(key: any, value: any): unknown;
}

/** A handler `context.onSendActivities` takes: it sees a batch of activities before they are sent. */
export type SendActivitiesHandlerLike = (
  context: any,
  activities: ActivityLike[],
  next: () => Promise<ResourceResponseLike[]>,
) => Promise<ResourceResponseLike[]>;

/** A turn context of either SDK: the incoming activity, the turn's state, and the send hook. */
export interface TurnContextLike {
  readonly activity: ActivityLike;
  readonly turnState: TurnStateLike;
  onSendActivities(handler: SendActivitiesHandlerLike): unknown;
}
