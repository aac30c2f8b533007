/**
 * Feedback on a bot's reply: the Teams feedback invoke (`message/submitAction` with `actionName:
 * 'feedback'`), which Teams sends when a user presses thumbs up or down on a reply that has the
 * feedback loop on (the Agents SDK's `StreamingResponse.setFeedbackLoop(true)`, or
 * `channelData.feedbackLoopEnabled`). Recorded as a custom event named `feedback`.
 */
import type { CustomEvent } from '../protocol/index.js';
import { conversationIdOf, endUserId } from './events.js';
import type { ActivityLike } from './sdk-types.js';
import { isObject, stringify } from './values.js';

/** The name of the custom event a feedback invoke becomes. */
export const FEEDBACK_EVENT = 'feedback';

/** True for the Teams feedback invoke: an `invoke` named `message/submitAction` whose value's `actionName` is `feedback`. */
export function isFeedbackInvoke(activity: ActivityLike): boolean {
  return activity.type === 'invoke' && activity.name === 'message/submitAction' && isObject(activity.value) && activity.value.actionName === 'feedback';
}

/** The text a user wrote with their feedback: `feedback` is a JSON string (`{"feedbackText": "…"}`), an object, or plain text. */
function feedbackText(feedback: unknown): string | undefined {
  let value = feedback;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      return feedback === '' ? undefined : (feedback as string);
    }
  }
  if (isObject(value) && typeof value.feedbackText === 'string') return value.feedbackText;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * The custom event of a feedback invoke: `name: 'feedback'`, the user who gave it, the
 * conversation, and `extraInfo` = `{ reaction: 'like' | 'dislike', feedbackText?, replyToId? }`,
 * where `replyToId` is the id of the reply the user rated. `undefined` for any other activity.
 */
export function feedbackEventOf(activity: ActivityLike): CustomEvent | undefined {
  if (!isFeedbackInvoke(activity)) return undefined;
  const actionValue = isObject(activity.value) && isObject(activity.value.actionValue) ? activity.value.actionValue : {};
  const extraInfo: Record<string, unknown> = { reaction: stringify(actionValue.reaction) };
  const text = feedbackText(actionValue.feedback);
  if (text !== undefined) extraInfo.feedbackText = text;
  if (typeof activity.replyToId === 'string' && activity.replyToId !== '') extraInfo.replyToId = activity.replyToId;
  const event: CustomEvent = { type: 'customEvent', name: FEEDBACK_EVENT, userId: stringify(endUserId(activity)), extraInfo };
  const conversationId = conversationIdOf(activity);
  if (conversationId !== undefined) event.conversationId = conversationId;
  return event;
}
