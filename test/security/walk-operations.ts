// The operations of /openapi.json as the cross-account walk calls them: which account resource each
// path parameter and each id-bearing input field names, a minimal valid input built from the
// operation's own schema, and the variants that put another account's ids into those places.
import type { AccountResources } from './walk-accounts.js';
import { COMPANIONS, isRequired, minimalInput, validInput } from './walk-inputs.js';

/** What an id in a path or an input names: a field of AccountResources. */
export type Kind =
  | 'company'
  | 'channel'
  | 'auth'
  | 'conversation'
  | 'contact'
  | 'message'
  | 'attachment'
  | 'template'
  | 'webhook'
  | 'job'
  | 'delivery'
  | 'replayTask'
  | 'tokenId'
  | 'storageKey'
  | 'fileName'
  | 'provider';

/** A place of an operation that names an account's resource. */
export interface Slot {
  where: 'path' | 'input';
  name: string;
  kind: Kind;
  /** An input field holding a list of ids. */
  list?: boolean;
}

export interface WalkOperation {
  method: string;
  /** The OpenAPI path, `{param}` segments. */
  path: string;
  auth: 'api' | 'admin' | 'none';
  /** The JSON body's schema (POST, PUT, PATCH) or the query's, as one object schema (GET, DELETE). */
  input?: object;
  /** A multipart upload without any other way in: the walk sends a small file. */
  multipartOnly: boolean;
  slots: Slot[];
}

/** Path parameters named after what they hold. */
const PARAM_KINDS: Record<string, Kind> = {
  companyId: 'company',
  messageId: 'message',
  jobId: 'job',
  deliveryId: 'delivery',
  taskId: 'replayTask',
  endpointId: 'webhook',
  tokenId: 'tokenId',
  storageKey: 'storageKey',
  fileName: 'fileName',
  provider: 'provider',
  channelId: 'channel',
};
/** Input fields named like ids that name no resource of an account: the walk has nothing foreign to put there. */
const NOT_ACCOUNT_IDS: Record<string, string> = {
  vendor_channel_id: "the provider's id of a channel",
  vendor_client_id: "the provider's id of its client",
  page_id: "the provider's id of a business page",
  social_a_id: "the provider's id of a user",
  replied_to_id: "the provider's id of a message",
  assignee_id: "a CRM user's id, which the gateway keeps as given",
};
/** `{id}` names a resource of the collection before it. */
const COLLECTION_KINDS: Record<string, Kind> = {
  companies: 'company',
  channels: 'channel',
  conversations: 'conversation',
  contacts: 'contact',
  auths: 'auth',
  webhooks: 'webhook',
  deliveries: 'delivery',
  replays: 'replayTask',
};
/** Input fields that hold ids of an account's resources. */
const INPUT_KINDS: Record<string, { kind: Kind; list?: boolean }> = {
  company_id: { kind: 'company' },
  company_ids: { kind: 'company', list: true },
  attachment_ids: { kind: 'attachment', list: true },
  message_ids: { kind: 'message', list: true },
  biz_template_id: { kind: 'template' },
  endpoint_id: { kind: 'webhook' },
};

/** The kind a path parameter names; throws for one the walk has no value for, so a new kind of id fails the walk. */
export function pathKind(path: string, param: string): Kind {
  const segments = path.split('/');
  const index = segments.indexOf(`{${param}}`);
  const before = segments[index - 1] ?? '';
  // A channel under a provider's literal name is that provider's channel (the auth is the chat_a_business one).
  if (param === 'channelId' && before === 'chat_a_business') return 'auth';
  const kind = param === 'id' ? COLLECTION_KINDS[before] : PARAM_KINDS[param];
  if (kind === undefined) throw new Error(`no known value for path parameter {${param}} of ${path}`);
  return kind;
}

/** Every operation of the document, with the places that name an account's resources. */
export function walkOperations(document: { paths: Record<string, Record<string, any>> }): WalkOperation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]): WalkOperation => {
      const security = (op.security ?? []) as Record<string, unknown>[];
      const auth = security.length === 0 ? 'none' : 'adminToken' in security[0]! ? 'admin' : 'api';
      const params = (op.parameters ?? []) as { name: string; in: string; required?: boolean; schema: object }[];
      const content = op.requestBody?.content ?? {};
      const query = params.filter((p) => p.in === 'query');
      const input: object | undefined =
        content['application/json']?.schema ??
        (query.length === 0
          ? undefined
          : {
              type: 'object',
              required: query.filter((p) => p.required === true).map((p) => p.name),
              properties: Object.fromEntries(query.map((p) => [p.name, p.schema])),
            });
      const slots: Slot[] = params
        .filter((p) => p.in === 'path')
        .map((p) => ({ where: 'path', name: p.name, kind: pathKind(path, p.name) }));
      for (const name of inputFields(input)) {
        const ref = INPUT_KINDS[name];
        if (ref !== undefined) slots.push({ where: 'input', name, ...ref });
        else if (auth !== 'admin' && /(^|_)ids?$/.test(name) && !(name in NOT_ACCOUNT_IDS)) {
          throw new Error(`no known value for the id field ${name} of ${method.toUpperCase()} ${path}`);
        }
      }
      return {
        method: method.toUpperCase(),
        path,
        auth,
        input,
        multipartOnly: input === undefined && content['multipart/form-data'] !== undefined,
        slots,
      };
    }),
  );
}

function inputFields(schema: any): string[] {
  if (schema === undefined) return [];
  const variants: any[] = schema.oneOf ?? schema.anyOf ?? [schema];
  return [...new Set(variants.flatMap((v) => Object.keys(v.properties ?? {})))];
}

/** The value of an id of `kind` in `account`, as the path or the input carries it. */
export function valueOf(account: AccountResources, kind: Kind): string | number {
  if (kind === 'provider') return 'chat_a';
  return account[kind];
}

/** A value of `kind` that names nothing: what an answer to another account's id must look like. */
export function unknownValue(kind: Kind): string | number {
  switch (kind) {
    case 'provider':
      return 'chat_a';
    case 'delivery':
      return 'dlv_00000000000000000000000000000000';
    case 'replayTask':
      return 'rpl_00000000000000000000000000000000';
    case 'storageKey':
      return '0000000000000000000000000000000000000000000';
    case 'fileName':
      return 'unknown.png';
    case 'template':
      return 'walk-unknown-template';
    default:
      return 987_654_321;
  }
}

/** Which account (or none) each slot's id is taken from: 'own', 'foreign' or 'unknown'. */
export type Assignment = Record<string, 'own' | 'foreign' | 'unknown'>;

const slotKey = (slot: Slot) => `${slot.where}:${slot.name}`;

/**
 * The variants of an operation that name another account's resources: every slot foreign, then
 * each slot foreign alone beside the caller's own ids (a route that checks the company but not the
 * resource under it is caught there).
 */
export function foreignVariants(op: WalkOperation): Assignment[] {
  // A provider's name is the same for every account: it is never the foreign part of a request.
  const slots = op.slots.filter((s) => s.kind !== 'provider');
  const all = Object.fromEntries(slots.map((s) => [slotKey(s), 'foreign' as const]));
  if (slots.length < 2) return slots.length === 0 ? [] : [all];
  const single = slots.map((slot) =>
    Object.fromEntries(slots.map((s) => [slotKey(s), s === slot ? ('foreign' as const) : ('own' as const)])),
  );
  return [all, ...single];
}

/** The same variant with its foreign ids replaced by ids of nothing. */
export function asUnknown(variant: Assignment): Assignment {
  return Object.fromEntries(Object.entries(variant).map(([k, v]) => [k, v === 'foreign' ? 'unknown' : v]));
}

/** Whether a slot of the variant takes another account's (or no account's) id. */
export function isForeign(variant: Assignment, slot: Slot): boolean {
  const owner = variant[slotKey(slot)];
  return owner === 'foreign' || owner === 'unknown';
}

export interface BuiltRequest {
  path: string;
  input?: Record<string, unknown>;
}

/** The path and the minimal valid input of a variant, ids taken from `own` and `foreign` as it says. */
export function buildRequest(
  op: WalkOperation,
  variant: Assignment,
  own: AccountResources,
  foreign: AccountResources,
): BuiltRequest {
  const pick = (slot: Slot) => {
    const owner = variant[slotKey(slot)] ?? 'own';
    return owner === 'unknown' ? unknownValue(slot.kind) : valueOf(owner === 'own' ? own : foreign, slot.kind);
  };
  let path = op.path;
  for (const slot of op.slots.filter((s) => s.where === 'path')) {
    path = path.replace(`{${slot.name}}`, encodeURIComponent(String(pick(slot))));
  }
  if (op.input === undefined) return { path };
  const input = minimalInput(op.input);
  for (const slot of op.slots.filter((s) => s.where === 'input')) {
    // An optional id field goes in only to carry a foreign (or unknown) id: an own one would make
    // a request the walk must not send (a write of the caller's own) or clash with the foreign one.
    if (!isRequired(op.input, slot.name) && variant[slotKey(slot)] === 'own') continue;
    input[slot.name] = slot.list === true ? [pick(slot)] : pick(slot);
    Object.assign(input, COMPANIONS[slot.name]);
  }
  const problems = validInput(op.input, input);
  if (problems !== null) {
    throw new Error(
      `the walk's input for ${op.method} ${op.path} is not valid (add a sample for the field): ${problems}\n${JSON.stringify(input)}`,
    );
  }
  return { path, input };
}
