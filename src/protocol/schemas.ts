/**
 * The spec's record shapes as schemas: the single source of truth for what a valid record is.
 * The client validates with them before sending; the local endpoint validates with them on receipt.
 */
import { anyObject, array, check, discriminated, finiteNumber, object, optional, string, type Schema, type ValidationIssue } from './schema.js';
import type { PlatformKind, RecordType } from './types.js';

const str = string();
const id = string({ nonEmpty: true });

/** Intent: name and inputs are both required when an intent is present. */
export const intentSchema: Schema = object({
  name: id,
  inputs: array(object({ name: str, value: str })),
});

/** The generic message shape (sms, universal, direct-message platform; both directions). */
export const messageSchema: Schema = object({
  text: str,
  userId: id,
  intent: optional(intentSchema),
  images: optional(array(object({ url: str }))),
  buttons: optional(array(object({ id: str, label: str, value: str }))),
  postback: optional(object({ buttonClick: object({ buttonId: str }) })),
  platformJson: optional(anyObject()),
});

/** The messenger incoming payload: the webhook data as the platform delivered it, with an optional intent per message. */
export const messengerIncomingSchema: Schema = object({
  object: str,
  entry: array(
    object({
      id: str,
      time: finiteNumber(),
      messaging: array(
        object({
          sender: object({ id }),
          recipient: object({ id: str }),
          timestamp: finiteNumber(),
          message: optional(
            object({ mid: optional(str), seq: optional(finiteNumber()), text: optional(str) }),
          ),
          intent: optional(intentSchema),
        }),
        { nonEmpty: true },
      ),
    }),
    { nonEmpty: true },
  ),
});

/** The messenger outgoing payload: the bot's request data, the platform's reply, and an optional intent at the root. */
export const messengerOutgoingSchema: Schema = object({
  qs: optional(object({ access_token: optional(str) })),
  uri: optional(str),
  method: optional(str),
  json: object({
    recipient: object({ id }),
    message: object({ text: optional(str) }),
  }),
  responseBody: optional(object({ recipient_id: optional(str), message_id: optional(str) })),
  intent: optional(intentSchema),
});

const eventBase = { name: id, userId: id, conversationId: optional(str) };

const eventVariants: Record<string, Schema> = {
  customEvent: object({ ...eventBase, extraInfo: optional(anyObject()) }),
  revenueEvent: object({
    ...eventBase,
    amount: finiteNumber(),
    referenceNumber: optional(str),
    metadata: optional(anyObject()),
  }),
  shareEvent: object({ ...eventBase, sharedMessage: optional(anyObject()) }),
  pageLaunchEvent: object({ ...eventBase, extraInfo: optional(anyObject()) }),
};

/** An event of one of the four types the spec says the endpoint accepts. */
export const eventSchema: Schema = discriminated('type', eventVariants);

/** Events including `referralEvent`, which the spec describes without saying the endpoint accepts it. */
export const eventSchemaWithReferral: Schema = discriminated('type', {
  ...eventVariants,
  referralEvent: object({
    ...eventBase,
    ref: optional(str),
    source: optional(str),
    adid: optional(str),
    refereruri: optional(str),
  }),
});

/** The scripted form: `type=generic` with a `{text}` body. */
export const genericSchema: Schema = object({ text: str });

/** Options that change what counts as valid. */
export interface ValidateOptions {
  /** Accept `referralEvent` as an event type. Default `false`: the spec does not say the endpoint accepts it. */
  allowReferralEvent?: boolean;
}

/** The schema for a record of `type` on a platform of `kind`. */
export function schemaFor(kind: PlatformKind, type: RecordType, options: ValidateOptions = {}): Schema {
  if (type === 'event') return options.allowReferralEvent ? eventSchemaWithReferral : eventSchema;
  if (kind === 'messenger') return type === 'incoming' ? messengerIncomingSchema : messengerOutgoingSchema;
  return messageSchema;
}

/**
 * Checks a record body against the spec. Returns every problem with its field path; an empty
 * list means the body conforms. Never throws.
 */
export function validate(
  kind: PlatformKind,
  type: RecordType,
  body: unknown,
  options: ValidateOptions = {},
): ValidationIssue[] {
  return check(schemaFor(kind, type, options), body);
}
