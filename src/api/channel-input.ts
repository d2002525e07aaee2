import {
  channelCreateBodies,
  channelProviderBody,
  channelUpdateBodies,
  type Provider,
} from '../../schemas/v1/channels.js';
import { validator, type Validator } from '../http/validate.js';

type Input = Record<string, unknown>;

/** Compiled once, shared by v1 channels and v2 auths: the same entity, the same variants. */
export const providerBody = validator(channelProviderBody);

const compileEach = (schemas: Record<Provider, object>) =>
  Object.fromEntries(
    Object.entries(schemas).map(([provider, schema]) => [provider, validator<object, Input>(schema)]),
  ) as Record<Provider, Validator<Input>>;

/** The create variant of each provider (contract: "Create channel variants"). */
export const createBodies = compileEach(channelCreateBodies);
/** The credential update of each provider. */
export const updateBodies = compileEach(channelUpdateBodies);
