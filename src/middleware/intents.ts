/**
 * Intents from recognizer results: the top intent becomes the intent's name, the entities its
 * inputs, followed by the recognizer's confidence (`score`). Works with LUIS, CLU, Orchestrator or
 * any recognizer that returns a `RecognizerResult`.
 */
import type { ActivityLike, RecognizerResultLike } from './sdk-types.js';
import type { Intent, IntentInput } from '../protocol/index.js';
import { isObject, stringify } from './values.js';

/** What `setIntent` and `setOutgoingIntent` accept: an intent, just its name, or a recognizer's result. */
export type IntentSource = Intent | string | RecognizerResultLike;

/** The intent name a message the recognizer could not place is recorded with. */
export const NOT_HANDLED = 'NotHandled';

/** Options of `intentFromRecognizerResult`. */
export interface IntentFromRecognizerOptions {
  /**
   * Lowest score the top intent may have. A top intent scoring below it is recorded as
   * `NotHandled` (with the recognizer's intent and score as inputs), so low-confidence messages
   * show up with the unhandled ones instead of inflating an intent. An intent without a numeric
   * score counts as 0. Default 0 (the top intent is always used).
   */
  minScore?: number;
  /**
   * Top intents that mean "not understood": recorded as `NotHandled`, with the recognizer's intent
   * and score as inputs. Default `['None']` (LUIS's and CLU's none intent).
   */
  noneIntents?: readonly string[];
}

/** The default of `noneIntents`. */
export const DEFAULT_NONE_INTENTS: readonly string[] = ['None'];

/** The valueType of the trace activity LuisRecognizer sends each turn. */
export const LUIS_TRACE_VALUE_TYPE = 'https://www.luis.ai/schemas/trace';

/**
 * True when `value` looks like a recognizer result: an object with an `intents` object.
 *
 * It narrows the way code written for either SDK expects: a value typed `any` (a trace
 * activity's `value`) stays `any`, and a union keeps its members that are recognizer results (a
 * `RecognizerResult | string` becomes botbuilder's `RecognizerResult`), so the narrowed value
 * still goes to code that takes the SDK's own `RecognizerResult`; an `unknown` value becomes
 * `RecognizerResultLike`. Never throws.
 */
export function isRecognizerResult<T>(
  value: T,
): value is 0 extends 1 & T ? T : unknown extends T ? T & RecognizerResultLike : T extends object ? (T extends RecognizerResultLike ? T : T & RecognizerResultLike) : never {
  return isObject(value) && isObject(value.intents);
}

function instanceText(instances: unknown, index: number): string | undefined {
  const item = Array.isArray(instances) ? instances[index] : undefined;
  return isObject(item) && typeof item.text === 'string' ? item.text : undefined;
}

/**
 * Entities as intent inputs: one input per entity value, named after the entity. The value is
 * the text the user typed for it (`$instance[name][i].text`) where the recognizer gives one,
 * otherwise the value itself as a string (objects and arrays as JSON, without `$instance`).
 * The `$instance` entry is not an input of its own.
 */
export function inputsFromEntities(entities: unknown): IntentInput[] {
  if (!isObject(entities)) return [];
  const instances = isObject(entities.$instance) ? entities.$instance : {};
  const inputs: IntentInput[] = [];
  for (const name of Object.keys(entities)) {
    if (name === '$instance') continue;
    const raw = entities[name];
    const values = Array.isArray(raw) ? raw : [raw];
    values.forEach((value, index) => {
      if (value === undefined || value === null) return;
      inputs.push({ name, value: instanceText(instances[name], index) ?? stringify(value) });
    });
  }
  return inputs;
}

/**
 * The intent of a recognizer result: the highest-scoring intent (the first one on a tie; an
 * intent named `''` is never chosen, and a score that is not a finite number counts as 0) as the
 * name, the entities as inputs (see `inputsFromEntities`) followed by `score`, the recognizer's
 * confidence (the endpoint averages it per intent). A top intent in `options.noneIntents`
 * (default `None`) or scoring below `options.minScore` becomes `NotHandled`, with inputs
 * `topIntent` (the recognizer's name) and `score` before the entities. Returns `undefined` when
 * there is no intent. Never throws.
 *
 * @example
 * intentFromRecognizerResult({ text: 'to Paris', intents: { BookFlight: { score: 0.9 } },
 *   entities: { city: ['paris'], $instance: { city: [{ text: 'Paris' }] } } })
 * // → { name: 'BookFlight', inputs: [{ name: 'city', value: 'Paris' }, { name: 'score', value: '0.9' }] }
 */
export function intentFromRecognizerResult(result: RecognizerResultLike, options: IntentFromRecognizerOptions = {}): Intent | undefined {
  if (!isRecognizerResult(result)) return undefined;
  let top: string | undefined;
  let topScore = -Infinity;
  for (const name of Object.keys(result.intents)) {
    // The spec refuses an intent without a name: choosing one would cost the message its record.
    if (name === '') continue;
    const score = (result.intents[name] as { score?: unknown } | undefined)?.score;
    const value = typeof score === 'number' && Number.isFinite(score) ? score : 0;
    if (value > topScore) {
      top = name;
      topScore = value;
    }
  }
  if (top === undefined) return undefined;
  const inputs = inputsFromEntities(result.entities);
  if (topScore < (options.minScore ?? 0) || (options.noneIntents ?? DEFAULT_NONE_INTENTS).includes(top)) {
    return { name: NOT_HANDLED, inputs: [{ name: 'topIntent', value: top }, { name: 'score', value: String(topScore) }, ...inputs] };
  }
  // The recognizer's confidence goes last, so the endpoint can show each intent's average.
  return { name: top, inputs: [...inputs, { name: 'score', value: String(topScore) }] };
}

/**
 * Turns anything `setIntent` accepts into a spec intent: a string becomes `{name, inputs: []}`,
 * an intent gets string inputs (missing `inputs` become `[]`), a recognizer result goes through
 * `intentFromRecognizerResult`. Returns `undefined` for anything else.
 */
export function toIntent(source: unknown, options: IntentFromRecognizerOptions = {}): Intent | undefined {
  if (typeof source === 'string') return source === '' ? undefined : { name: source, inputs: [] };
  if (isRecognizerResult(source)) return intentFromRecognizerResult(source, options);
  if (!isObject(source) || typeof source.name !== 'string' || source.name === '') return undefined;
  const inputs = Array.isArray(source.inputs) ? source.inputs : [];
  return {
    name: source.name,
    inputs: inputs.filter(isObject).map((input) => ({ name: stringify(input.name), value: stringify(input.value) })),
  };
}

/**
 * The confidence of a CLU intent: `confidenceScore` as the REST API and the C# SDK name it, or
 * `confidence` as the JavaScript SDK (`@azure/ai-language-conversations`) returns it, which the
 * BotBuilder JavaScript samples' CLU recognizer traces as it is. `undefined` when neither is a number.
 */
function confidenceOf(item: unknown): number | undefined {
  if (!isObject(item)) return undefined;
  if (typeof item.confidenceScore === 'number') return item.confidenceScore;
  return typeof item.confidence === 'number' ? item.confidence : undefined;
}

/** A CLU prediction (`result.prediction` of an Azure AI Language conversation analysis): its intents with confidence scores. */
function isCluPrediction(value: unknown): value is Record<string, any> {
  return isObject(value) && (Array.isArray(value.intents) || (isObject(value.intents) && typeof value.topIntent === 'string'));
}

/**
 * The conversation project's prediction an orchestration project routed to: when the top intent
 * (`topIntent`, else the highest `confidenceScore`) targets a conversation project
 * (`targetProjectKind: 'Conversation'`), its `result.prediction`, with that result's `query`.
 * `undefined` otherwise (a question-answering or LUIS target, or no nested prediction).
 */
function routedConversation(prediction: Record<string, any>): { prediction: Record<string, any>; query: unknown } | undefined {
  const intents: unknown = prediction.intents;
  if (!isObject(intents)) return undefined;
  let top = typeof prediction.topIntent === 'string' && isObject(intents[prediction.topIntent]) ? prediction.topIntent : undefined;
  if (top === undefined) {
    let best = -Infinity;
    for (const [name, item] of Object.entries(intents)) {
      const score = confidenceOf(item);
      if (score !== undefined && score > best) [top, best] = [name, score];
    }
  }
  const target: unknown = top === undefined ? undefined : intents[top];
  if (!isObject(target) || target.targetProjectKind !== 'Conversation' || !isObject(target.result)) return undefined;
  const nested: unknown = target.result.prediction;
  return isCluPrediction(nested) && Array.isArray(nested.intents) ? { prediction: nested, query: target.result.query } : undefined;
}

/**
 * A CLU prediction as a recognizer result: `intents[].category`/`confidenceScore` (or `confidence`, the
 * JavaScript SDK's name; a conversation project), or `intents.{name}.confidenceScore` (an
 * orchestration project), as `intents.{name}.score`;
 * `entities[]` (`category`, `text`) as entities with the text the user typed. When an
 * orchestration project's top intent routed to a conversation project, that project's prediction
 * is used instead: its intents and entities, what the user actually asked for.
 */
export function recognizerResultOfClu(prediction: Record<string, any>, text?: string): RecognizerResultLike {
  const routed = routedConversation(prediction);
  if (routed !== undefined) return recognizerResultOfClu(routed.prediction, typeof routed.query === 'string' ? routed.query : text);
  const intents: Record<string, { score: number }> = {};
  const score = (item: unknown) => confidenceOf(item) ?? 0;
  if (Array.isArray(prediction.intents)) {
    for (const item of prediction.intents) if (isObject(item) && typeof item.category === 'string') intents[item.category] = { score: score(item) };
  } else {
    for (const [name, item] of Object.entries(prediction.intents as Record<string, unknown>)) intents[name] = { score: score(item) };
  }
  // Each entity's value is the text the user typed, so no `$instance` is needed to recover it.
  const values: Record<string, string[]> = {};
  // Stryker disable next-line ArrayDeclaration: a non-array `entities` gives no entity either way (an element that is not an object is skipped below)
  for (const entity of Array.isArray(prediction.entities) ? prediction.entities : []) {
    if (!isObject(entity) || typeof entity.category !== 'string') continue;
    (values[entity.category] ??= []).push(stringify(entity.text));
  }
  return { text, intents, entities: values };
}

/**
 * The recognizer result a trace activity carries, if any: LuisRecognizer's trace
 * (`value.recognizerResult`), any other trace whose value has a `recognizerResult` (the C# CLU
 * recognizer's), a trace whose value is itself a recognizer result, or a CLU response: the raw
 * Azure AI Language result as the JavaScript BotBuilder samples' CLU recognizer traces it
 * (`sendTraceActivity('CLU Recognizer', { response: cluResponse }, 'CLU Trace')`, so
 * `value.response.result.prediction`), or unwrapped (`value.result.prediction`, a bare
 * `value.prediction`). Cheap: a few property reads.
 */
export function recognizerResultOfTrace(activity: ActivityLike): RecognizerResultLike | undefined {
  const value: unknown = activity.value;
  if (!isObject(value)) return undefined;
  if (isRecognizerResult(value.recognizerResult)) return value.recognizerResult;
  if (activity.valueType !== LUIS_TRACE_VALUE_TYPE && isRecognizerResult(value)) return value;
  const response = isObject(value.response) ? value.response : value;
  const result = isObject(response.result) ? response.result : response;
  const prediction = isCluPrediction(result.prediction) ? result.prediction : undefined;
  if (prediction !== undefined) return recognizerResultOfClu(prediction, typeof result.query === 'string' ? result.query : undefined);
  return undefined;
}
