/**
 * Cards as a user sees them: the images, buttons and first text of every Bot Framework card and of
 * Adaptive Cards however nested, and which offered button a click names.
 */
import { describe, expect, it } from 'vitest';
import { buttonClickOf, buttonsOf, cardTextOf, imagesOf } from '../../src/middleware/attachments.js';
import { messengerAttachments } from '../../src/middleware/map-messenger.js';

const adaptive = (content: Record<string, unknown>) => ({ attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', content }] });
const card = (type: string, content: Record<string, unknown>) => ({ attachments: [{ contentType: `application/vnd.microsoft.card.${type}`, content }] });

/** An order card as Teams and Web Chat bots send it: columns, a container, an image set, an ActionSet, a ShowCard and a table. */
const ORDER_CARD = {
  type: 'AdaptiveCard',
  version: '1.6',
  body: [
    { type: 'ColumnSet', columns: [
      { type: 'Column', items: [{ type: 'Image', url: 'https://cdn.example/logo.png', size: 'Small' }] },
      { type: 'Column', items: [{ type: 'TextBlock', text: 'Your order #1042', weight: 'Bolder' }, { type: 'TextBlock', text: 'Ready at 18:30' }] },
    ] },
    { type: 'Container', selectAction: { type: 'Action.OpenUrl', title: 'Track', url: 'https://shop.example/track/1042' }, items: [
      { type: 'ImageSet', images: [{ type: 'Image', url: 'https://cdn.example/pizza.png' }, { url: 'https://cdn.example/salad.png' }] },
    ] },
    { type: 'Table', columns: [{ width: 1 }], rows: [{ type: 'TableRow', cells: [{ type: 'TableCell', items: [{ type: 'Image', url: 'https://cdn.example/receipt.png' }] }] }] },
    { type: 'Input.Text', id: 'note', placeholder: 'A note for the kitchen' },
    { type: 'ActionSet', actions: [{ type: 'Action.Execute', title: 'Reorder', verb: 'reorder', data: { order: 1042 } }] },
  ],
  actions: [
    { type: 'Action.Submit', title: 'Confirm', data: { action: 'confirm', order: 1042 } },
    { type: 'Action.ShowCard', title: 'Rate it', card: { type: 'AdaptiveCard', body: [{ type: 'Input.ChoiceSet', id: 'stars' }], actions: [{ type: 'Action.Submit', title: 'Send rating', data: { action: 'rate' } }] } },
    { type: 'Action.ToggleVisibility', title: 'More', targetElements: ['x'] },
  ],
};

describe('Adaptive Cards', () => {
  it('gives every image and every Submit, Execute and OpenUrl action, however nested, in document order', () => {
    const activity = adaptive(ORDER_CARD);
    expect(imagesOf(activity).map((i) => i.url)).toEqual([
      'https://cdn.example/logo.png', 'https://cdn.example/pizza.png', 'https://cdn.example/salad.png', 'https://cdn.example/receipt.png',
    ]);
    expect(buttonsOf(activity)).toEqual([
      { id: 'https://shop.example/track/1042', label: 'Track', value: 'https://shop.example/track/1042' },
      { id: 'reorder', label: 'Reorder', value: 'reorder' },
      { id: '{"action":"confirm","order":1042}', label: 'Confirm', value: '{"action":"confirm","order":1042}' },
      { id: '{"action":"rate"}', label: 'Send rating', value: '{"action":"rate"}' },
    ]);
  });

  it('takes the first text block as the text of a card-only message', () => {
    expect(cardTextOf(adaptive(ORDER_CARD))).toBe('Your order #1042');
    expect(cardTextOf(adaptive({ body: [{ type: 'RichTextBlock', inlines: ['Hello ', { type: 'TextRun', text: 'Ada' }] }] }))).toBe('Hello Ada');
    expect(cardTextOf(adaptive({ body: [{ type: 'TextBlock', text: '  ' }, { type: 'Image', url: 'https://x.example/a.png' }] }))).toBeUndefined();
  });

  it('reads Teams\' msteams data: the imBack or messageBack value is what comes back when clicked', () => {
    const activity = adaptive({ actions: [
      { type: 'Action.Submit', title: 'Yes', data: { msteams: { type: 'imBack', value: 'yes please' } } },
      { type: 'Action.Submit', title: 'Details', data: { msteams: { type: 'messageBack', text: 'details', displayText: 'Show details', value: { id: 7 } } } },
      { type: 'Action.Submit', title: 'Plain', data: { msteams: { type: 'task/fetch' }, pick: 'a' } },
      { type: 'Action.Submit', title: 'Nothing' },
    ] });
    expect(buttonsOf(activity)).toEqual([
      { id: 'yes please', label: 'Yes', value: 'yes please' },
      { id: '{"id":7}', label: 'Details', value: '{"id":7}' },
      { id: '{"pick":"a"}', label: 'Plain', value: '{"pick":"a"}' },
      { id: 'Nothing', label: 'Nothing', value: '' },
    ]);
  });

  it('reads Media elements (poster and sources) as images', () => {
    const activity = adaptive({ body: [{ type: 'Media', poster: 'https://cdn.example/poster.jpg', sources: [{ mimeType: 'video/mp4', url: 'https://cdn.example/clip.mp4' }] }] });
    expect(imagesOf(activity).map((i) => i.url)).toEqual(['https://cdn.example/poster.jpg', 'https://cdn.example/clip.mp4']);
  });

  it('stops at a depth and an element budget a hostile card cannot exceed, without throwing', () => {
    let deep: Record<string, unknown> = { type: 'Image', url: 'https://cdn.example/bottom.png' };
    for (let i = 0; i < 100; i++) deep = { type: 'Container', items: [deep] };
    expect(imagesOf(adaptive({ body: [deep] }))).toEqual([]);
    const wide = adaptive({ body: Array.from({ length: 5_000 }, (_, i) => ({ type: 'Image', url: `https://cdn.example/${i}.png` })) });
    const images = imagesOf(wide);
    expect(images.length).toBeGreaterThan(1_000);
    expect(images.length).toBeLessThan(2_001);
    expect(() => buttonsOf(adaptive({ body: 'nonsense', actions: [null, 3, { type: 'Action.Submit', data: 1n }] }))).not.toThrow();
  });
});

describe('Adaptive Card images, links and pages', () => {
  it('backgroundImage is an image: a string (1.0) or { url } (1.2+), on the card, a Container and a Column', () => {
    const v10 = adaptive({ version: '1.0', backgroundImage: 'https://cdn.example/bg-1.0.png', body: [{ type: 'TextBlock', text: 'Hi' }] });
    expect(imagesOf(v10).map((i) => i.url)).toEqual(['https://cdn.example/bg-1.0.png']);
    const v12 = adaptive({
      version: '1.5',
      backgroundImage: { url: 'https://cdn.example/card.png', fillMode: 'cover' },
      body: [
        { type: 'Container', backgroundImage: { url: 'https://cdn.example/container.png' }, items: [{ type: 'Image', url: 'https://cdn.example/inside.png' }] },
        { type: 'ColumnSet', columns: [{ type: 'Column', backgroundImage: 'https://cdn.example/column.png', items: [] }] },
      ],
    });
    expect(imagesOf(v12).map((i) => i.url)).toEqual(['https://cdn.example/card.png', 'https://cdn.example/container.png', 'https://cdn.example/inside.png', 'https://cdn.example/column.png']);
  });

  it("a TextRun's selectAction is a button, after the run's text is read", () => {
    const activity = adaptive({ body: [{ type: 'RichTextBlock', inlines: [{ type: 'TextRun', text: 'See the ' }, { type: 'TextRun', text: 'menu', selectAction: { type: 'Action.OpenUrl', title: 'Menu', url: 'https://shop.example/menu' } }] }] });
    expect(cardTextOf(activity)).toBe('See the menu');
    expect(buttonsOf(activity)).toEqual([{ id: 'https://shop.example/menu', label: 'Menu', value: 'https://shop.example/menu' }]);
  });

  it("the sign-in buttons of a card's authentication (Adaptive Cards 1.4 single sign-on) are buttons", () => {
    const activity = adaptive({
      version: '1.4',
      body: [{ type: 'TextBlock', text: 'Your orders' }],
      actions: [{ type: 'Action.Execute', title: 'Refresh', verb: 'refresh' }],
      authentication: { text: 'Please sign in', connectionName: 'graph', buttons: [{ type: 'signin', title: 'Sign in', value: 'https://login.example/sso' }] },
    });
    expect(buttonsOf(activity).map((b) => [b.label, b.value])).toEqual([['Refresh', 'refresh'], ['Sign in', 'https://login.example/sso']]);
  });

  it("Teams' Carousel: every page's images, text and buttons, in order", () => {
    const activity = adaptive({
      version: '1.6',
      body: [{ type: 'Carousel', pages: [
        { type: 'CarouselPage', items: [{ type: 'TextBlock', text: 'Margherita' }, { type: 'Image', url: 'https://cdn.example/m.png' }], selectAction: { type: 'Action.Submit', title: 'Order margherita', data: { pizza: 'margherita' } } },
        { type: 'CarouselPage', items: [{ type: 'Image', url: 'https://cdn.example/p.png' }, { type: 'ActionSet', actions: [{ type: 'Action.Submit', title: 'Order pepperoni', data: { pizza: 'pepperoni' } }] }] },
      ] }],
    });
    expect(cardTextOf(activity)).toBe('Margherita');
    expect(imagesOf(activity).map((i) => i.url)).toEqual(['https://cdn.example/m.png', 'https://cdn.example/p.png']);
    expect(buttonsOf(activity).map((b) => b.label)).toEqual(['Order margherita', 'Order pepperoni']);
  });

  it('card content given as a JSON string is read like an object', () => {
    const asText = { attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', content: JSON.stringify(ORDER_CARD) }] };
    expect(imagesOf(asText)).toEqual(imagesOf(adaptive(ORDER_CARD)));
    expect(buttonsOf(asText)).toEqual(buttonsOf(adaptive(ORDER_CARD)));
    expect(cardTextOf(asText)).toBe('Your order #1042');
    const hero = { attachments: [{ contentType: 'application/vnd.microsoft.card.hero', content: '{"title":"Pizza","images":[{"url":"https://cdn.example/p.png"}]}' }] };
    expect([cardTextOf(hero), imagesOf(hero)]).toEqual(['Pizza', [{ url: 'https://cdn.example/p.png' }]]);
    expect(messengerAttachments(hero)).toEqual([{ type: 'template', payload: { template_type: 'generic', elements: [{ title: 'Pizza', image_url: 'https://cdn.example/p.png' }] } }]);
    // Text that is not a card's JSON is no card.
    expect(cardTextOf({ attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', content: '{not json' }] })).toBeUndefined();
  });
});

describe('hostile card content', () => {
  /** An object with a field whose getter throws, as the fault suite builds them. */
  const withThrowingGetter = <T extends object>(value: T, key = 'boom'): T =>
    Object.defineProperty(value, key, { enumerable: true, get: () => { throw new Error('getter exploded'); } });

  it('a throwing getter on the card, an element or an action costs only that field: the rest of the card is read', () => {
    const content = withThrowingGetter({
      type: 'AdaptiveCard',
      body: [
        withThrowingGetter({ type: 'TextBlock', text: 'Still here' }),
        withThrowingGetter({ type: 'Image', url: 'https://cdn.example/ok.png' }, 'altText'),
        withThrowingGetter({ type: 'Container', items: [{ type: 'Image', url: 'https://cdn.example/lost.png' }] }, 'items'),
      ],
      actions: [withThrowingGetter({ type: 'Action.Submit', title: 'Go', data: { go: 1 } }), { type: 'Action.OpenUrl', title: 'Site', url: 'https://shop.example' }],
    });
    const activity = { attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', content }] };
    expect(cardTextOf(activity)).toBe('Still here');
    expect(imagesOf(activity).map((i) => i.url)).toEqual(['https://cdn.example/ok.png']);
    expect(buttonsOf(activity).map((b) => b.label)).toEqual(['Go', 'Site']);
  });

  it('an attachment that cannot be read is skipped; a Bot Framework card or button loses only the field that throws', () => {
    const hostile = withThrowingGetter({ contentType: 'image/png' }, 'contentUrl');
    const hero = { contentType: 'application/vnd.microsoft.card.hero', content: withThrowingGetter({ title: 'Hero', buttons: [withThrowingGetter({ type: 'imBack', title: 'Broken' }, 'value'), { type: 'imBack', title: 'Ok', value: 'ok' }] }, 'images') };
    const activity = { attachments: [hostile, hero, { contentType: 'image/png', contentUrl: 'https://cdn.example/fine.png' }] };
    expect(imagesOf(activity)).toEqual([{ url: 'https://cdn.example/fine.png' }]);
    // A button whose value cannot be read keeps its label.
    expect(buttonsOf(activity)).toEqual([{ id: 'Broken', label: 'Broken', value: '' }, { id: 'ok', label: 'Ok', value: 'ok' }]);
    expect(cardTextOf(activity)).toBe('Hero');
    expect(messengerAttachments(activity)).toEqual([
      { type: 'template', payload: { template_type: 'generic', elements: [{ title: 'Hero', buttons: [{ type: 'postback', title: 'Broken', payload: '' }, { type: 'postback', title: 'Ok', payload: 'ok' }] }] } },
      { type: 'image', payload: { url: 'https://cdn.example/fine.png' } },
    ]);
  });
});

describe('Bot Framework cards', () => {
  it('sign-in and OAuth cards: the button, and the text as the message text', () => {
    const signin = card('signin', { text: 'Sign in to see your orders', buttons: [{ type: 'signin', title: 'Sign in', value: 'https://login.example/auth' }] });
    expect(buttonsOf(signin)).toEqual([{ id: 'https://login.example/auth', label: 'Sign in', value: 'https://login.example/auth' }]);
    expect(cardTextOf(signin)).toBe('Sign in to see your orders');
    const oauth = card('oauth', { text: 'Please sign in', connectionName: 'graph', buttons: [{ type: 'signin', title: 'Sign in', value: 'https://token.example/sign?x=1' }] });
    expect(buttonsOf(oauth).map((b) => b.label)).toEqual(['Sign in']);
  });

  it('video, audio and animation cards: their media and image; receipt cards: item images and buttons', () => {
    expect(imagesOf(card('video', { title: 'How we bake', image: { url: 'https://cdn.example/thumb.jpg' }, media: [{ url: 'https://cdn.example/bake.mp4' }] })).map((i) => i.url))
      .toEqual(['https://cdn.example/thumb.jpg', 'https://cdn.example/bake.mp4']);
    expect(imagesOf(card('audio', { title: 'Jingle', media: [{ url: 'https://cdn.example/jingle.mp3' }] })).map((i) => i.url)).toEqual(['https://cdn.example/jingle.mp3']);
    expect(imagesOf(card('animation', { media: [{ url: 'https://cdn.example/dance.gif' }] })).map((i) => i.url)).toEqual(['https://cdn.example/dance.gif']);
    const receipt = card('receipt', { title: 'Receipt', items: [{ title: 'Pizza', image: { url: 'https://cdn.example/p.png' } }], buttons: [{ type: 'openUrl', title: 'Invoice', value: 'https://shop.example/inv/1' }] });
    expect(imagesOf(receipt).map((i) => i.url)).toEqual(['https://cdn.example/p.png']);
    expect(buttonsOf(receipt).map((b) => b.label)).toEqual(['Invoice']);
    expect(cardTextOf(receipt)).toBe('Receipt');
  });

  it('an image sent by URL without a media type is an image', () => {
    expect(imagesOf({ attachments: [{ contentUrl: 'https://cdn.example/photo.JPG?size=2' }] }).map((i) => i.url)).toEqual(['https://cdn.example/photo.JPG?size=2']);
    expect(imagesOf({ attachments: [{ contentType: 'application/pdf', contentUrl: 'https://cdn.example/menu.pdf' }] })).toEqual([]);
    expect(imagesOf({ attachments: [{ contentType: 'video/mp4', contentUrl: 'https://cdn.example/clip.png' }] })).toEqual([]);
  });
});

describe('clicks', () => {
  const offered = buttonsOf(adaptive(ORDER_CARD));

  it('an Action.Submit click (data plus the card\'s inputs) names the button whose data it holds', () => {
    expect(buttonClickOf({ type: 'message', value: { action: 'confirm', order: 1042, note: 'extra cheese' } }, offered)).toBe('{"action":"confirm","order":1042}');
    expect(buttonClickOf({ type: 'message', value: { action: 'rate', stars: '5' } }, offered)).toBe('{"action":"rate"}');
    // Not one of the offered buttons: the value itself, as before.
    expect(buttonClickOf({ type: 'message', value: { action: 'cancel' } }, offered)).toBe('{"action":"cancel"}');
  });

  it('the adaptiveCard/action invoke of an Action.Execute names the button with its verb', () => {
    const execute = { type: 'invoke', name: 'adaptiveCard/action', value: { action: { type: 'Action.Execute', verb: 'reorder', data: { order: 1042 } } } };
    expect(buttonClickOf(execute, offered)).toBe('reorder');
    expect(buttonClickOf({ ...execute, value: { action: { type: 'Action.Execute', data: { x: 1 } } } }, undefined)).toBe('{"x":1}');
    expect(buttonClickOf({ type: 'invoke', name: 'adaptiveCard/action', value: { action: { type: 'Action.Execute' } } }, offered)).toBeUndefined();
  });
});

describe('Messenger attachments', () => {
  it('keeps attachments without a URL as sent, and types a URL image as image', () => {
    const template = { type: 'template', payload: { template_type: 'button', text: 'Pick', buttons: [{ type: 'postback', title: 'A', payload: 'A' }] } };
    expect(messengerAttachments({ attachments: [
      { contentType: 'template', content: template },
      { contentType: 'image', content: { attachment_id: '1857777774821032' } },
      { contentUrl: 'https://cdn.example/photo.png' },
      { contentType: 'application/pdf', contentUrl: 'https://cdn.example/menu.pdf' },
    ] })).toEqual([
      template,
      { type: 'image', payload: { attachment_id: '1857777774821032' } },
      { type: 'image', payload: { url: 'https://cdn.example/photo.png' } },
      { type: 'file', payload: { url: 'https://cdn.example/menu.pdf' } },
    ]);
  });
});
