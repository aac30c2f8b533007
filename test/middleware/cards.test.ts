/**
 * Cards as a user sees them: the images, buttons and first text of every Bot Framework card and of
 * Adaptive Cards however nested, and which offered button a click names.
 */
import { describe, expect, it } from 'vitest';
import { buttonClickOf as clickOf, buttonsOf, cardTextOf, imagesOf } from '../../src/middleware/attachments.js';
import { messengerAttachments } from '../../src/middleware/map-messenger.js';
import type { ActivityLike } from '../../src/middleware/sdk-types.js';
import type { Button } from '../../src/protocol/index.js';

/** The click an activity is, when one message offered `offered` (clicks on older messages: click-memory.test.ts). */
const buttonClickOf = (activity: ActivityLike, offered: Button[] | undefined) => clickOf(activity, offered === undefined ? undefined : [offered]);

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

  it("a button's URL keeps no secret: query tokens and credentials are masked, as in images and platformJson", () => {
    const signin = card('signin', { buttons: [{ type: 'signin', title: 'Log in', value: 'https://login.example/cb?code=SECRETCODE&token=SECRETTOK&state=ok' }] });
    expect(buttonsOf(signin)).toEqual([{ id: 'https://login.example/cb?code=***&token=***&state=ok', label: 'Log in', value: 'https://login.example/cb?code=***&token=***&state=ok' }]);
    const open = adaptive({ type: 'AdaptiveCard', actions: [{ type: 'Action.OpenUrl', url: 'https://user:pw@x.example/?sig=SIGSECRET' }] });
    const [button] = buttonsOf(open);
    expect(JSON.stringify(button)).not.toMatch(/SIGSECRET|pw@/);
    expect(button.label).toBe(button.value);
    // Suggested actions too; a value that is not a URL is left alone.
    expect(buttonsOf({ suggestedActions: { actions: [{ type: 'openUrl', title: 'Pay', value: 'https://pay.example/?access_token=AT1' }, { type: 'imBack', title: 'Hi', value: 'token=abc' }] } }).map((b) => b.value)).toEqual(['https://pay.example/?access_token=***', 'token=abc']);
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

describe('clicks on buttons without data, and Teams messageBack', () => {
  const form = (actions: Record<string, unknown>[]) => buttonsOf(adaptive({ type: 'AdaptiveCard', version: '1.5', body: [{ type: 'Input.Text', id: 'note' }], actions }));

  it('a form whose one Submit has no data: the submitted inputs are a click on that button', () => {
    const offered = form([{ type: 'Action.Submit', title: 'Send' }, { type: 'Action.OpenUrl', title: 'Help', url: 'https://help.example/' }]);
    expect(buttonClickOf({ type: 'message', value: { note: 'hello' } }, offered)).toBe('Send');
    expect(buttonClickOf({ type: 'message', value: {} }, offered)).toBe('Send');
    // data: {} is no data either: the button is known by its title.
    expect(form([{ type: 'Action.Submit', title: 'Go', data: {} }])).toEqual([{ id: 'Go', label: 'Go', value: '' }]);
    expect(buttonClickOf({ type: 'message', value: { note: 'x' } }, form([{ type: 'Action.Submit', title: 'Go', data: {} }]))).toBe('Go');
  });

  it('a button whose data the value holds wins over the button without data; two buttons without data cannot be told apart', () => {
    const mixed = form([{ type: 'Action.Submit', title: 'Send' }, { type: 'Action.Submit', title: 'Cancel', data: { action: 'cancel' } }]);
    expect(buttonClickOf({ type: 'message', value: { action: 'cancel', note: 'n' } }, mixed)).toBe('{"action":"cancel"}');
    expect(buttonClickOf({ type: 'message', value: { note: 'n' } }, mixed)).toBe('Send');
    const two = form([{ type: 'Action.Submit', title: 'Send' }, { type: 'Action.Submit', title: 'Save' }]);
    expect(buttonClickOf({ type: 'message', value: { note: 'n' } }, two)).toBe('{"note":"n"}');
  });

  it('an Action.Execute without a verb: its invoke (data plus inputs) names the button whose data it holds, or the one without data', () => {
    const invoke = (action: Record<string, unknown>) => ({ type: 'invoke', name: 'adaptiveCard/action', value: { action: { type: 'Action.Execute', ...action }, trigger: 'manual' } });
    const offered = form([{ type: 'Action.Execute', title: 'Go', data: { id: 2 } }, { type: 'Action.Execute', title: 'Stop', data: { id: 3 } }]);
    expect(buttonClickOf(invoke({ data: { id: 2, note: 'typed' } }), offered)).toBe('{"id":2}');
    expect(buttonClickOf(invoke({ data: { id: 3 } }), offered)).toBe('{"id":3}');
    expect(buttonClickOf(invoke({ data: { id: 4 } }), offered)).toBe('{"id":4}');
    expect(buttonClickOf(invoke({ data: { note: 'typed' } }), form([{ type: 'Action.Execute', title: 'Run' }]))).toBe('Run');
    // With a verb, the verb decides: data that holds another button's data does not.
    expect(buttonClickOf(invoke({ verb: 'other', data: { id: 2 } }), offered)).toBe('other');
  });

  it("Teams' messageBack with more data beside msteams: its text names the button, not the extra value", () => {
    const offered = form([{ type: 'Action.Submit', title: 'Go', data: { msteams: { type: 'messageBack', text: 'go3' }, extra: 'e' } }]);
    expect(offered.map((b) => b.value)).toEqual(['go3']);
    expect(buttonClickOf({ type: 'message', text: 'go3', value: { extra: 'e' } }, offered)).toBe('go3');
    expect(buttonClickOf({ type: 'message', text: 'other', value: { extra: 'e' } }, offered)).toBe('{"extra":"e"}');
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

describe('buttons and clicks in detail', () => {
  it("a card action's label is its title, else displayText, else text, else its value; its id is the value, else the label", () => {
    const buttons = buttonsOf({ suggestedActions: { actions: [
      { type: 'imBack', title: 'Yes', value: 'yes' },
      { type: 'messageBack', title: '', displayText: 'Shown', text: 'sent', value: { a: 1 } },
      { type: 'messageBack', text: 'only text' },
      { type: 'imBack', value: 7 },
      { type: 'imBack' },
      'not an action',
    ] } } as never);
    expect(buttons).toEqual([
      { id: 'yes', label: 'Yes', value: 'yes' },
      { id: '{"a":1}', label: 'Shown', value: '{"a":1}' },
      { id: 'only text', label: 'only text', value: '' },
      { id: '7', label: '7', value: '7' },
      { id: '', label: '', value: '' },
    ]);
    expect(buttonsOf({ suggestedActions: { actions: 'none' } } as never)).toEqual([]);
  });

  it("an Adaptive Card submit's value: Teams' imBack value, messageBack value else text, another msteams value, else the data without msteams", () => {
    const submit = (data: unknown) => ({ type: 'Action.Submit', title: 'B', data });
    const values = buttonsOf(adaptive({ type: 'AdaptiveCard', actions: [
      submit({ msteams: { type: 'imBack', value: 'picked' } }),
      submit({ msteams: { type: 'messageBack', text: 'typed' } }),
      submit({ msteams: { type: 'messageBack', value: { v: 1 }, text: 'typed' } }),
      submit({ msteams: { type: 'invoke', value: 'task' } }),
      submit({ msteams: { type: 'signin' }, order: 3 }),
      submit({ msteams: { type: 'signin' } }),
      submit({ msteams: 'odd', order: 4 }),
      submit('plain string'),
      submit(undefined),
      { type: 'Action.Execute', title: 'E', data: { x: 1 } },
      { type: 'Action.Execute', title: '', verb: '', data: 'd' },
      { type: 'Action.OpenUrl', url: 'https://x.example/' },
      { type: 'Action.ToggleVisibility', title: 'no' },
    ] })).map((b) => [b.id, b.label, b.value]);
    expect(values).toEqual([
      ['picked', 'B', 'picked'],
      ['typed', 'B', 'typed'],
      ['{"v":1}', 'B', '{"v":1}'],
      ['task', 'B', 'task'],
      ['{"order":3}', 'B', '{"order":3}'],
      ['B', 'B', ''],
      ['{"order":4}', 'B', '{"order":4}'],
      ['plain string', 'B', 'plain string'],
      ['B', 'B', ''],
      ['{"x":1}', 'E', '{"x":1}'],
      ['d', 'd', 'd'],
      ['https://x.example/', 'https://x.example/', 'https://x.example/'],
    ]);
  });

  it('a click: an object value not matching an offered button is its JSON, a string value itself, Web Chat messageBack its text; an imBack click matches the value, else the label', () => {
    const offered = [{ id: 'b1', label: 'Large', value: 'size=large' }, { id: 'b2', label: 'Small', value: '{"size":"small"}' }];
    expect(buttonClickOf({ type: 'message', value: { other: 1 } }, offered)).toBe('{"other":1}');
    expect(buttonClickOf({ type: 'message', value: { size: 'small', note: 'x' } }, offered)).toBe('b2');
    expect(buttonClickOf({ type: 'message', value: 'raw' }, offered)).toBe('raw');
    expect(buttonClickOf({ type: 'message', value: 0 }, undefined)).toBe('0');
    expect(buttonClickOf({ type: 'message', text: 'mb', channelData: { messageBack: {} } }, undefined)).toBe('mb');
    expect(buttonClickOf({ type: 'message', text: '', channelData: { postBack: true } }, undefined)).toBeUndefined();
    expect(buttonClickOf({ type: 'message', text: 'x', channelData: { postBack: 'yes' } }, undefined)).toBeUndefined();
    expect(buttonClickOf({ type: 'message', text: 'size=large' }, offered)).toBe('b1');
    expect(buttonClickOf({ type: 'message', text: 'Small' }, offered)).toBe('b2');
    expect(buttonClickOf({ type: 'message', text: 'Medium' }, offered)).toBeUndefined();
    expect(buttonClickOf({ type: 'message', text: '' }, [{ id: 'e', label: '', value: '' }])).toBeUndefined();
    // An empty JSON object as a button's data is a button without data: the one such button offered
    // is the click when no other button's data matches; data that is not JSON is not a submit.
    expect(buttonClickOf({ type: 'message', value: { a: 1 } }, [{ id: 'empty', label: 'E', value: '{}' }, { id: 'bad', label: 'B', value: '{nope' }])).toBe('empty');
    expect(buttonClickOf({ type: 'message', value: { a: 1 } }, [{ id: 'bad', label: 'B', value: '{nope' }])).toBe('{"a":1}');
    // Nested data is matched field by field.
    expect(buttonClickOf({ type: 'message', value: { order: { id: 7, size: 'L' }, note: 'x' } }, [{ id: 'deep', label: 'D', value: '{"order":{"id":7}}' }])).toBe('deep');
    expect(buttonClickOf({ type: 'message', value: { order: { id: 8 } } }, [{ id: 'deep', label: 'D', value: '{"order":{"id":7}}' }])).toBe('{"order":{"id":8}}');
  });

  it('an Action.Execute invoke names the offered button with its verb, else the verb itself; an action with no value is not a click', () => {
    const invoke = (action: Record<string, unknown>) => ({ type: 'invoke', name: 'adaptiveCard/action', value: { action } });
    expect(buttonClickOf(invoke({ verb: 'approve' }), [{ id: 'btn-approve', label: 'Approve', value: 'approve' }])).toBe('btn-approve');
    expect(buttonClickOf(invoke({ verb: 'approve' }), undefined)).toBe('approve');
    expect(buttonClickOf(invoke({}), undefined)).toBeUndefined();
  });
});

describe('images in detail', () => {
  it('an attachment is an image by an image/* type, or without a media type by a URL naming an image file', () => {
    const images = imagesOf({ attachments: [
      { contentType: 'image/png', contentUrl: 'https://x.example/a' },
      { contentType: 'IMAGE', contentUrl: 'https://x.example/b' },
      { contentType: 'imagery/x', contentUrl: 'https://x.example/c' },
      { contentType: 'video/mp4', contentUrl: 'https://x.example/d.png' },
      { contentType: 'audio', contentUrl: 'https://x.example/e.png' },
      { contentType: 'application/vnd.microsoft.card.custom', contentUrl: 'https://x.example/f.png' },
      { contentUrl: 'https://x.example/g.jpeg?size=2' },
      { contentUrl: 'https://x.example/h.webp#frag' },
      { contentUrl: 'https://x.example/i.pngx' },
      { contentUrl: 'https://x.example/j.svg.txt' },
      { contentType: 'image/png', contentUrl: '' },
      { contentType: 'image/png', contentUrl: 'DATA:image/png;base64,AA' },
      { contentType: 'image/png' },
    ] });
    expect(images.map((i) => i.url)).toEqual(['https://x.example/a', 'https://x.example/b', 'https://x.example/g.jpeg?size=2', 'https://x.example/h.webp#frag']);
  });

  it('Twilio media: MediaUrl0…N while they last (images by type), then mediaUrl as one URL or a list', () => {
    const channelData: Record<string, unknown> = { MediaUrl0: 'https://api.twilio.example/0', MediaContentType0: 'image/jpeg', MediaUrl1: 'https://api.twilio.example/1', MediaContentType1: 'video/mp4', MediaUrl2: 'https://api.twilio.example/2', MediaContentType2: 'IMAGE/GIF', MediaUrl4: 'https://api.twilio.example/4', MediaContentType4: 'image/png' };
    expect(imagesOf({ channelData }).map((i) => i.url)).toEqual(['https://api.twilio.example/0', 'https://api.twilio.example/2']);
    const many: Record<string, unknown> = {};
    for (let i = 0; i < 12; i++) Object.assign(many, { [`MediaUrl${i}`]: `https://t.example/${i}`, [`MediaContentType${i}`]: 'image/png' });
    expect(imagesOf({ channelData: many })).toHaveLength(10);
    expect(imagesOf({ channelData: { mediaUrl: 'https://t.example/p.png' } }).map((i) => i.url)).toEqual(['https://t.example/p.png']);
    expect(imagesOf({ channelData: { mediaUrl: ['https://t.example/a.gif', 'https://t.example/v.mp4', 5] } }).map((i) => i.url)).toEqual(['https://t.example/a.gif']);
    expect(imagesOf({ channelData: 'none' })).toEqual([]);
  });
});

describe('card content in detail', () => {
  it('content as a JSON string is parsed when it is an object, with leading spaces allowed; other strings are not cards', () => {
    const json = (content: string) => ({ attachments: [{ contentType: 'application/vnd.microsoft.card.hero', content }] });
    expect(cardTextOf(json('  {"title":"Spaced"}'))).toBe('Spaced');
    expect(cardTextOf(json('[{"title":"List"}]'))).toBeUndefined();
    expect(cardTextOf(json('{not json'))).toBeUndefined();
    expect(cardTextOf(json('"just text"'))).toBeUndefined();
    expect(cardTextOf(json(`{"title":"Big","pad":"${'x'.repeat(256 * 1024)}"}`))).toBeUndefined();
    expect(cardTextOf({ attachments: [{ contentType: 'application/vnd.microsoft.card.unknown', content: { title: 'No' } }] })).toBeUndefined();
  });

  it("a Bot Framework card's text is its title, else subtitle, else text, skipping blank ones; the first card with text wins", () => {
    expect(cardTextOf(card('hero', { title: ' ', subtitle: 'Sub', text: 'Text' }))).toBe('Sub');
    expect(cardTextOf(card('hero', { title: 5, text: 'Text' }))).toBe('Text');
    expect(cardTextOf({ attachments: [{ contentType: 'application/vnd.microsoft.card.hero', content: { images: [] } }, { contentType: 'application/vnd.microsoft.card.thumbnail', content: { title: 'Second' } }] })).toBe('Second');
  });

  it("an Adaptive Card's text is its first non-blank TextBlock or RichTextBlock, in document order", () => {
    expect(cardTextOf(adaptive({ type: 'AdaptiveCard', body: [{ type: 'TextBlock', text: '  ' }, { type: 'RichTextBlock', inlines: ['Hello ', { type: 'TextRun', text: 'there' }, { type: 'TextRun' }, 5] }, { type: 'TextBlock', text: 'later' }] }))).toBe('Hello there');
    expect(cardTextOf(adaptive({ type: 'AdaptiveCard', body: [{ type: 'RichTextBlock', inlines: [' '] }, { type: 'TextBlock', text: 'after' }] }))).toBe('after');
    expect(cardTextOf(adaptive({ type: 'AdaptiveCard', body: [{ type: 'TextBlock', text: 'first' }, { type: 'RichTextBlock', inlines: ['second'] }] }))).toBe('first');
  });

  it("an Adaptive Card's images: Image urls, Media posters and sources, backgrounds; an ImageSet image with a type of its own is read as that element", () => {
    const images = imagesOf(adaptive({ type: 'AdaptiveCard', body: [
      { type: 'Image', url: 5 },
      { type: 'Media', poster: 7, sources: [{ url: 'https://m.example/v.mp4' }, 'odd', { url: 3 }] },
      { type: 'ImageSet', images: [{ type: 'Image', url: 'https://m.example/typed.png' }, { type: 'TextBlock', text: 'not an image', url: 'https://m.example/no.png' }, { url: 'https://m.example/untyped.png' }] },
      { type: 'Container', backgroundImage: { url: 9 }, items: [] },
    ] }));
    expect(images.map((i) => i.url)).toEqual(['https://m.example/v.mp4', 'https://m.example/typed.png', 'https://m.example/untyped.png']);
  });

  it('an Adaptive Card action whose type is not a string is not a button, and an authentication button that is not an object is skipped', () => {
    expect(buttonsOf(adaptive({ type: 'AdaptiveCard', actions: [{ type: 5, title: 'x' }], authentication: { buttons: ['odd', { type: 'signin', title: 'Sign in', value: 'https://login.example/' }] } }))).toEqual([{ id: 'https://login.example/', label: 'Sign in', value: 'https://login.example/' }]);
    // authentication is read on the card root only.
    expect(buttonsOf(adaptive({ type: 'AdaptiveCard', body: [{ type: 'Container', authentication: { buttons: [{ title: 'Nested', value: 'n' }] } }] }))).toEqual([]);
  });
});
