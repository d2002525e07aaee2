import type { InboundFact } from '../domain/provider-facts.js';
import { CONSUMER_GROUP, STREAM } from '../streams/catalog.js';
import { applyCallback } from '../domain/incoming.js';
import { NotFound } from '../errors/errors.js';
import type { Logger } from '../log.js';
import type { Presenters } from '../presenters/presenters.js';
import type { Store } from '../store/store.js';
import type { StreamBus } from '../streams/stream.js';
import { aborted, type Worker } from '../workers/supervisor.js';

export interface InboundApplierOptions {
  store: Store;
  bus: StreamBus;
  presenters: Presenters;
  logger: Logger;
}

/**
 * The core side of `gateway.inbound`: applies the normalized facts senders (and the sandbox)
 * publish through applyCallback, the code path of provider callbacks, so that every change and its
 * event commit in one transaction. A fact applied twice changes nothing (its receipt).
 */
export class InboundApplier implements Worker {
  readonly name = 'inbound-applier';

  constructor(private readonly options: InboundApplierOptions) {}

  async run(signal: AbortSignal): Promise<void> {
    const subscription = this.options.bus.subscribe({
      stream: STREAM.inbound,
      group: CONSUMER_GROUP.core,
      handler: async (message) => this.apply(message.value as InboundFact),
    });
    await aborted(signal);
    await subscription.drain();
  }

  apply(fact: InboundFact): void {
    const { store, presenters, logger } = this.options;
    const settings = store.callbacks.find(fact.channel_id);
    try {
      if (settings === undefined) throw new NotFound(`Channel ${fact.channel_id} was not found.`);
      const outcome = applyCallback(store, { id: fact.channel_id, api: settings.api }, fact.batch, presenters);
      logger.info(
        { channel: fact.channel_id, kinds: fact.batch.items.map((i) => i.kind), ...outcome },
        'provider fact applied',
      );
    } catch (error) {
      // A deleted channel takes nothing more: the fact is dropped, not retried.
      if (!(error instanceof NotFound)) throw error;
      logger.info({ channel: fact.channel_id }, 'provider fact of a deleted channel dropped');
    }
  }
}
