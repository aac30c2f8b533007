import { describe, expect, it } from 'vitest';
import { feedbackEventOf, isFeedbackInvoke } from '../../src/middleware/feedback.js';

const invoke = (value: unknown, fields: Record<string, unknown> = {}) => ({
  type: 'invoke', name: 'message/submitAction', value, from: { id: 'u1' }, recipient: { id: 'bot' }, conversation: { id: 'c1' }, replyToId: 'reply-9', ...fields,
});

describe('the Teams feedback invoke', () => {
  it('is only an invoke named message/submitAction whose actionName is feedback', () => {
    expect(isFeedbackInvoke(invoke({ actionName: 'feedback', actionValue: { reaction: 'like' } }))).toBe(true);
    expect(isFeedbackInvoke(invoke({ actionName: 'other' }))).toBe(false);
    expect(isFeedbackInvoke(invoke({ actionName: 'feedback' }, { name: 'adaptiveCard/action' }))).toBe(false);
    expect(isFeedbackInvoke(invoke({ actionName: 'feedback' }, { type: 'message' }))).toBe(false);
    expect(isFeedbackInvoke(invoke('feedback'))).toBe(false);
    expect(feedbackEventOf(invoke({ actionName: 'other' }))).toBeUndefined();
  });

  it('reads the comment from a JSON string, an object or plain text, and leaves out an empty one', () => {
    const text = (feedback: unknown) => feedbackEventOf(invoke({ actionName: 'feedback', actionValue: { reaction: 'dislike', feedback } }))!.extraInfo;
    expect(text('{"feedbackText":"too long"}')).toEqual({ reaction: 'dislike', feedbackText: 'too long', replyToId: 'reply-9' });
    expect(text({ feedbackText: 'wrong price' })).toEqual({ reaction: 'dislike', feedbackText: 'wrong price', replyToId: 'reply-9' });
    expect(text('not json')).toEqual({ reaction: 'dislike', feedbackText: 'not json', replyToId: 'reply-9' });
    expect(text('"quoted"')).toEqual({ reaction: 'dislike', feedbackText: 'quoted', replyToId: 'reply-9' });
    expect(text('')).toEqual({ reaction: 'dislike', replyToId: 'reply-9' });
    expect(text('{}')).toEqual({ reaction: 'dislike', replyToId: 'reply-9' });
    expect(text(undefined)).toEqual({ reaction: 'dislike', replyToId: 'reply-9' });
  });

  it('is for the user who gave it, in their conversation; no replyToId when the invoke has none', () => {
    const event = feedbackEventOf(invoke({ actionName: 'feedback', actionValue: { reaction: 'like' } }, { replyToId: '', conversation: undefined }));
    expect(event).toEqual({ type: 'customEvent', name: 'feedback', userId: 'u1', extraInfo: { reaction: 'like' } });
  });

  it('records a missing actionValue as an empty reaction rather than dropping the feedback', () => {
    expect(feedbackEventOf(invoke({ actionName: 'feedback' }))).toEqual({ type: 'customEvent', name: 'feedback', userId: 'u1', conversationId: 'c1', extraInfo: { reaction: '', replyToId: 'reply-9' } });
  });
});
