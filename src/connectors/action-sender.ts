import { COMPANY_REACTOR } from '../domain/message-actions.js';
import type { InboundFact, IngestItem } from '../domain/provider-facts.js';
import type { Logger } from '../log.js';
import { STREAM } from '../streams/catalog.js';
import { pause, type Clock, type StreamBus } from '../streams/stream.js';
import { untilDone } from '../workers/supervisor.js';
import type { MessageActionRequest, ProviderMessageActionJob } from './connector.js';
import type { Connectors } from './registry.js';
import { retryPauseMs } from './retry-pause.js';
import type { ChannelThrottle } from './throttle.js';

export interface ActionSenderOptions {
  bus: StreamBus;
  connectors: Connectors;
  throttle: ChannelThrottle;
  /** GATEWAY_PROVIDER_RETRY_SCHEDULE: the pause before each new try of a transient failure. */
  retryScheduleMs: readonly number[];
  clock: Clock;
  logger: Logger;
}

/**
 * Carries out one message action job (a reaction added or removed, an edit, a read receipt) at the
 * channel's connector, tried again on transient failures like a send. What the provider did comes
 * back as a fact on `gateway.inbound`, applied like a callback of the channel: the company's
 * reaction (from `company`) or the new text, each a `message.update`. A read receipt changes no
 * message. A provider's final refusal is logged; the message stays as it was.
 */
export async function carryOutMessageAction(
  job: ProviderMessageActionJob,
  options: ActionSenderOptions,
  signal: AbortSignal,
): Promise<void> {
  const log = options.logger.child({ job: job.job_id, channel: job.channel_id, message: job.message_id });
  if (job.request === null) return void log.info({ action: job.action }, 'message action dropped: nothing left');
  const request = job.request;
  const connector = options.connectors.actor(request.provider);
  for (let tries = 1; ; tries += 1) {
    const result = await options.throttle.run(job.channel_id, () => connector.act(request, job.job_id), signal);
    if (result.kind === 'done') {
      const items = factsOf(request, job.job_id, options.clock.now());
      if (items.length > 0) await publishFacts(job, items, options, signal);
      return void log.info({ provider: request.provider, action: job.action, tries }, 'message action carried out');
    }
    const wait = retryPauseMs(options.retryScheduleMs, tries, result.retryAfterMs);
    if (result.permanent || wait === undefined)
      return void log.warn(
        { provider: request.provider, action: job.action, tries, error: result.error.code },
        'the provider did not carry out the message action',
      );
    await pause(wait, signal);
    if (signal.aborted) throw new Error('stopped while waiting to try a message action again');
  }
}

/** What the provider now holds, as the facts a callback would bring. */
function factsOf(request: MessageActionRequest, jobId: string, at: number): IngestItem[] {
  const { action } = request;
  switch (action.action) {
    case 'react':
    case 'unreact':
      return [
        {
          kind: 'reaction',
          receipt: `reaction:${jobId}`,
          targetExternalId: request.external_id,
          from: COMPANY_REACTOR,
          emoji: action.action === 'react' ? action.emoji : '',
          sentAt: at,
        },
      ];
    case 'edit':
      return [{ kind: 'edit', targetExternalId: request.external_id, text: action.text, editedAt: at }];
    case 'read':
      return [];
  }
}

async function publishFacts(
  job: ProviderMessageActionJob,
  items: IngestItem[],
  options: ActionSenderOptions,
  signal: AbortSignal,
): Promise<void> {
  const fact: InboundFact = { channel_id: job.channel_id, batch: { receipt: `action:${job.job_id}`, items } };
  // Publishing must not fail the job: that would carry it out again. Keep trying until it is out.
  await untilDone(
    'publishing a message action outcome',
    () =>
      options.bus.publish(STREAM.inbound, [{ key: String(job.channel_id), id: `action:${job.job_id}`, value: fact }]),
    signal,
    options.logger,
  );
}
