// An offline recognizer: keywords and regular expressions instead of a cloud service, so the sample
// runs without keys. It returns a RecognizerResult like LUIS or CLU would, and sends the same kind
// of trace activity LuisRecognizer sends, which the analytics middleware picks the intent up from.

const TRACE_VALUE_TYPE = 'https://www.luis.ai/schemas/trace';

/** The intents this recognizer knows: a pattern to spot each, and patterns for its entities (first group = the entity's text). */
export const DEFAULT_MODEL = {
  Greeting: { pattern: /\b(hi|hello|hey)\b/i, entities: {} },
  BookFlight: { pattern: /\b(book|fly|flight)\b/i, entities: { city: /\bto ([A-Z][a-z]+(?: [A-Z][a-z]+)*)/, date: /\b(today|tomorrow|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b/i } },
  Weather: { pattern: /\b(weather|rain|sunny|forecast)\b/i, entities: { city: /\bin ([A-Z][a-z]+(?: [A-Z][a-z]+)*)/ } },
  Help: { pattern: /\b(help|what can you do)\b/i, entities: {} },
};

export class KeywordRecognizer {
  constructor(model = DEFAULT_MODEL) {
    this.model = model;
  }

  /** Recognizes the turn's text without sending anything. */
  recognizeText(text) {
    const intents = { None: { score: 0.1 } };
    const entities = { $instance: {} };
    for (const [name, { pattern, entities: patterns }] of Object.entries(this.model)) {
      if (!pattern.test(text)) continue;
      intents[name] = { score: 0.9 };
      for (const [entity, entityPattern] of Object.entries(patterns)) {
        const match = entityPattern.exec(text);
        if (!match) continue;
        const found = match[1];
        const startIndex = match.index + match[0].indexOf(found);
        (entities[entity] ??= []).push(found.toLowerCase());
        (entities.$instance[entity] ??= []).push({ startIndex, endIndex: startIndex + found.length, text: found, type: entity, score: 0.9 });
      }
    }
    return { text, intents, entities };
  }

  /** Recognizes the turn's message and sends a LuisRecognizer-style trace with the result. */
  async recognize(context) {
    const result = this.recognizeText(context.activity.text ?? '');
    await context.sendActivity({
      type: 'trace',
      name: 'KeywordRecognizer',
      label: 'Keyword Trace',
      valueType: TRACE_VALUE_TYPE,
      value: { recognizerResult: result },
    });
    return result;
  }
}

/** The name of the highest-scoring intent of a result. */
export function topIntent(result) {
  let best = 'None';
  let bestScore = -1;
  for (const [name, { score }] of Object.entries(result.intents)) {
    if (score > bestScore) {
      best = name;
      bestScore = score;
    }
  }
  return best;
}
