/**
 * attachments.ts at its edges: which attachments are images, which Twilio media are, and which
 * offered button an incoming activity is a click on when its fields are odd (not strings, a media
 * type that only contains "image", data that only partly matches, an invoke that is not one).
 */
import { describe, expect, it } from 'vitest';
import { buttonClickOf, imagesOf, isAdaptiveCardAction, isImageAttachment, isTaskFetch } from '../../src/middleware/attachments.js';
import type { ActivityLike } from '../../src/middleware/sdk-types.js';
import type { Button } from '../../src/protocol/index.js';

const b = (id: string, label: string, value: string): Button => ({ id, label, value });
const urls = (activity: ActivityLike) => imagesOf(activity).map((image) => image.url);

describe('which attachments are images', () => {
  it('an image/* media type makes an image; a type that only contains "image" does not, nor one that is not a string', () => {
    expect(isImageAttachment({ contentType: 'IMAGE/png', contentUrl: 'https://cdn.example.com/file' })).toBe(true);
    expect(isImageAttachment({ contentType: 'image', contentUrl: 'https://cdn.example.com/file' })).toBe(true);
    expect(isImageAttachment({ contentType: 'application/x-image', contentUrl: 'https://cdn.example.com/file' })).toBe(false);
    expect(isImageAttachment({ contentType: ['image/png'], contentUrl: 'https://cdn.example.com/file' })).toBe(false);
    // A type that is not a string counts as none: the URL decides.
    expect(isImageAttachment({ contentType: ['video/mp4'], contentUrl: 'https://cdn.example.com/a.png' })).toBe(true);
  });

  it('without an image type, a URL naming an image file makes one, unless the type is video, audio or a card', () => {
    expect(isImageAttachment({ contentUrl: 'https://cdn.example.com/a.PNG?x=1' })).toBe(true);
    expect(isImageAttachment({ contentType: 'application/octet-stream', contentUrl: 'https://cdn.example.com/a.jpg' })).toBe(true);
    // Only a type that starts with video/ or audio/ is a video or a sound.
    expect(isImageAttachment({ contentType: 'application/x-video', contentUrl: 'https://cdn.example.com/a.png' })).toBe(true);
    expect(isImageAttachment({ contentType: 'video/mp4', contentUrl: 'https://cdn.example.com/a.png' })).toBe(false);
    expect(isImageAttachment({ contentType: 'audio', contentUrl: 'https://cdn.example.com/a.png' })).toBe(false);
    expect(isImageAttachment({ contentType: 'application/vnd.microsoft.card.hero', contentUrl: 'https://cdn.example.com/a.png' })).toBe(false);
    // A URL that is not a string names no file.
    expect(isImageAttachment({ contentUrl: ['https://cdn.example.com/a.png'] })).toBe(false);
  });

  it('a URL that only contains "data:" is kept; an inline data: URL and one that is not a string are left out, and the next attachments are still read', () => {
    const activity: ActivityLike = {
      type: 'message',
      attachments: [
        { contentType: 'image/png', contentUrl: 42 as unknown as string },
        { contentType: 'image/png', contentUrl: 'DATA:image/png;base64,iVBORw0KGgo=' },
        { contentType: 'image/png', contentUrl: 'https://cdn.example.com/data:1/a.png' },
      ],
    };
    expect(urls(activity)).toEqual(['https://cdn.example.com/data:1/a.png']);
  });

  it("a card's inline data: image is left out, its other images kept", () => {
    const activity: ActivityLike = {
      type: 'message',
      attachments: [{ contentType: 'application/vnd.microsoft.card.hero', content: { images: [{ url: 'data:image/png;base64,AAAA' }, { url: 'https://cdn.example.com/hero.png' }] } }],
    };
    expect(urls(activity)).toEqual(['https://cdn.example.com/hero.png']);
  });
});

describe('Twilio media', () => {
  it('an image is known by a media type that starts with image/ and is a string; a media URL that is not a string or is inline is skipped, the next ones still read', () => {
    const channelData = {
      MediaUrl0: 42,
      MediaContentType0: 'image/png',
      MediaUrl1: 'https://api.twilio.com/media/1',
      MediaContentType1: ['image/png'],
      MediaUrl2: 'https://api.twilio.com/media/2',
      MediaContentType2: 'application/image/x',
      MediaUrl3: 'data:image/png;base64,AAAA',
      MediaContentType3: 'image/png',
      MediaUrl4: 'https://api.twilio.com/media/4',
      MediaContentType4: 'Image/JPEG',
    };
    expect(urls({ type: 'message', channelData })).toEqual(['https://api.twilio.com/media/4']);
  });
});

describe('which offered button an activity is a click on', () => {
  const order = b('{"order":1}', 'Order', '{"order":1}');
  const buy = b('{"action":"buy","id":1}', 'Buy', '{"action":"buy","id":1}');

  it('every field of a button\'s data must be in the value, with the same value, nested objects compared field by field', () => {
    expect(buttonClickOf({ type: 'message', value: { action: 'buy', id: 2 } }, [[buy]])).toBe('{"action":"buy","id":2}');
    expect(buttonClickOf({ type: 'message', value: { action: 'buy', id: 1, comment: 'fast' } }, [[buy]])).toBe(buy.id);
    // A field that is a value in the button's data and an object in the submitted one does not match.
    expect(buttonClickOf({ type: 'message', value: { order: { id: 1 } } }, [[order]])).toBe('{"order":{"id":1}}');
    const nested = b('{"pick":{"size":"L"}}', 'Large', '{"pick":{"size":"L"}}');
    expect(buttonClickOf({ type: 'message', value: { pick: { size: 'L', qty: 2 } } }, [[nested]])).toBe(nested.id);
    expect(buttonClickOf({ type: 'message', value: { pick: { size: 'M' } } }, [[nested]])).toBe('{"pick":{"size":"M"}}');
  });

  it('a button whose value is text that only looks like JSON after a space carries no data', () => {
    const spaced = b('spaced', 'Spaced', ' {"x":1}');
    const empty = b('empty', 'Empty', ' {}');
    expect(buttonClickOf({ type: 'message', value: { x: 1 } }, [[spaced]])).toBe('{"x":1}');
    expect(buttonClickOf({ type: 'message', value: { y: 2 } }, [[empty]])).toBe('{"y":2}');
  });

  it('a value that is not an object is no submit: the one button without data is not its click', () => {
    const form = b('Send', 'Send', '');
    expect(buttonClickOf({ type: 'message', value: 'yes' }, [[form]])).toBe('yes');
    expect(buttonClickOf({ type: 'message', value: { name: 'Ada' } }, [[form]])).toBe('Send');
  });

  it('a null value is no value: the text decides', () => {
    const yes = b('yes-id', 'Yes', 'yes');
    expect(buttonClickOf({ type: 'message', value: null }, [[yes]])).toBeUndefined();
    expect(buttonClickOf({ type: 'message', value: null, text: 'yes' }, [[yes]])).toBe('yes-id');
  });

  it("Web Chat's postBack without text, or with text that is not a string, is no click", () => {
    expect(buttonClickOf({ type: 'message', channelData: { postBack: true } }, undefined)).toBeUndefined();
    expect(buttonClickOf({ type: 'message', text: 5 as unknown as string, channelData: { postBack: true } }, undefined)).toBeUndefined();
    expect(buttonClickOf({ type: 'message', text: 'menu', channelData: { postBack: true } }, undefined)).toBe('menu');
  });

  it('an Action.Execute invoke with an empty verb is known by its data, as one without a verb', () => {
    const pick = b('{"pick":"a"}', 'Pick A', '{"pick":"a"}');
    const invoke = { type: 'invoke', name: 'adaptiveCard/action', value: { action: { type: 'Action.Execute', verb: '', data: { pick: 'a', note: 'x' } } } };
    expect(buttonClickOf(invoke, [[pick]])).toBe(pick.id);
  });

  it('an adaptiveCard/action invoke whose action is no button is no click, and does not throw', () => {
    const invoke = { type: 'invoke', name: 'adaptiveCard/action', value: { action: { type: 'Action.ShowCard', title: 'More' } } };
    expect(buttonClickOf(invoke, [[b('More', 'More', '')]])).toBeUndefined();
  });

  it('a task/fetch that carries no offered button is no click, and does not throw', () => {
    expect(buttonClickOf({ type: 'invoke', name: 'task/fetch', value: { data: { open: 'x' } } }, undefined)).toBeUndefined();
    expect(buttonClickOf({ type: 'invoke', name: 'task/fetch', value: { data: { open: 'x' } } }, [[b('{"open":"y"}', 'Open', '{"open":"y"}')]])).toBeUndefined();
  });
});

describe('which activities are card invokes', () => {
  const action = { type: 'Action.Execute', verb: 'approve' };

  it('adaptiveCard/action: only an invoke of that name with an action, not an automatic refresh', () => {
    expect(isAdaptiveCardAction({ type: 'invoke', name: 'adaptiveCard/action', value: { action } })).toBe(true);
    expect(isAdaptiveCardAction({ type: 'invoke', name: 'adaptiveCard/action', value: { action, trigger: 'automatic' } })).toBe(false);
    expect(isAdaptiveCardAction({ type: 'message', name: 'adaptiveCard/action', value: { action } })).toBe(false);
    expect(isAdaptiveCardAction({ type: 'event', value: { action } })).toBe(false);
    expect(isAdaptiveCardAction({ type: 'invoke', name: 'composeExtension/submitAction', value: { action } })).toBe(false);
    expect(isAdaptiveCardAction({ type: 'invoke', name: 'adaptiveCard/action', value: { action: 'approve' } })).toBe(false);
  });

  it('a message or an event that carries an action is recorded as what it is, not as a click on that action', () => {
    const verb = b('approve', 'Approve', 'approve');
    expect(buttonClickOf({ type: 'message', value: { action } }, [[verb]])).toBe(JSON.stringify({ action }));
    expect(buttonClickOf({ type: 'message', name: 'task/fetch', value: { data: { x: 1 } } }, [[verb]])).toBe('{"data":{"x":1}}');
  });

  it('task/fetch: only an invoke of that name with an object value', () => {
    expect(isTaskFetch({ type: 'invoke', name: 'task/fetch', value: {} })).toBe(true);
    expect(isTaskFetch({ type: 'event', name: 'task/fetch', value: {} })).toBe(false);
    expect(isTaskFetch({ type: 'invoke', name: 'task/submit', value: {} })).toBe(false);
    expect(isTaskFetch({ type: 'invoke', name: 'task/fetch', value: 'x' })).toBe(false);
  });
});
