/**
 * Intents from recognizer results: the top intent becomes the intent's name, the entities its
 * inputs. Works with LUIS, CLU, Orchestrator or any recognizer that returns a `RecognizerResult`.
 */
import type { Activity, RecognizerResult } from 'botbuilder';
import type { Intent, IntentInput } from '../spec/index.js';
import { isObject, stringify } from './values.js';

/** What `setIntent` and `setOutgoingIntent` accept: an intent, just its name, or a recognizer's result. */
export type IntentSource = Intent | string | RecognizerResult;

/** Options of `intentFromRecognizerResult`. */
export interface IntentFromRecognizerOptions {
  /**
   * Lowest score the top intent may have. A top intent scoring below it gives no intent at all
   * (`undefined`), not a `None` label: a wrong label would roll unrelated messages together.
   * An intent without a numeric score counts as 0. Default 0 (the top intent is always used).
   */
  minScore?: number;
}

/** The valueType of the trace activity LuisRecognizer sends each turn. */
export const LUIS_TRACE_VALUE_TYPE = 'https://www.luis.ai/schemas/trace';

/** True when `value` looks like a recognizer result: an object with an `intents` object. */
export function isRecognizerResult(value: unknown): value is RecognizerResult {
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
 * The intent of a recognizer result: the highest-scoring intent (the first one on a tie) as the
 * name, the entities as inputs (see `inputsFromEntities`). Returns `undefined` when there is no
 * intent, or when the top score is below `options.minScore`. Never throws.
 *
 * @example
 * intentFromRecognizerResult({ text: 'to Paris', intents: { BookFlight: { score: 0.9 } },
 *   entities: { city: ['paris'], $instance: { city: [{ text: 'Paris' }] } } })
 * // → { name: 'BookFlight', inputs: [{ name: 'city', value: 'Paris' }] }
 */
export function intentFromRecognizerResult(result: RecognizerResult, options: IntentFromRecognizerOptions = {}): Intent | undefined {
  if (!isRecognizerResult(result)) return undefined;
  let top: string | undefined;
  let topScore = -Infinity;
  for (const name of Object.keys(result.intents)) {
    const score = (result.intents[name] as { score?: unknown } | undefined)?.score;
    const value = typeof score === 'number' && Number.isFinite(score) ? score : 0;
    if (value > topScore) {
      top = name;
      topScore = value;
    }
  }
  if (top === undefined || topScore < (options.minScore ?? 0)) return undefined;
  return { name: top, inputs: inputsFromEntities(result.entities) };
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
 * The recognizer result a trace activity carries, if any: LuisRecognizer's trace
 * (`value.recognizerResult`), any other trace whose value has a `recognizerResult`, or a trace
 * whose value is itself a recognizer result. Cheap: a few property reads.
 */
export function recognizerResultOfTrace(activity: Partial<Activity>): RecognizerResult | undefined {
  const value: unknown = activity.value;
  if (!isObject(value)) return undefined;
  if (isRecognizerResult(value.recognizerResult)) return value.recognizerResult;
  if (activity.valueType !== LUIS_TRACE_VALUE_TYPE && isRecognizerResult(value)) return value;
  return undefined;
}
