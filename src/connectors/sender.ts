import type { InboundFact, IngestItem } from '../domain/provider-facts.js';
import type { Logger } from '../log.js';
import { CONSUMER_GROUP, STREAM } from '../streams/catalog.js';
import { pause, type StreamBus, type Subscription } from '../streams/stream.js';
import { aborted, untilDone, type Worker } from '../workers/supervisor.js';
import type {
  LaterStatus,
  ProviderDeleteJob,
  ProviderError,
  ProviderMessageActionJob,
  ProviderSendJob,
  SendRequest,
} from './connector.js';
import { carryOutMessageAction, type ActionSenderOptions } from './action-sender.js';
import { retryPauseMs } from './retry-pause.js';
import { ProviderCallSpans } from './provider-spans.js';

export interface ProviderSenderOptions extends ActionSenderOptions {
  /** Channels sending at once (distinct keys of the stream). */
  maxInFlight?: number;
}

/**
 * The provider sender (docs/design.md section 8): consumes resolved jobs from `gateway.outbound`
 * (sends; deletes and message actions run alike, see handleDelete and carryOutMessageAction),
 * calls the channel's connector and publishes the outcome on `gateway.inbound` as a normalized fact:
 * sent with the provider's id, or refused for good. A transient failure (5xx, 429, network) is
 * tried again in place after the schedule's pause (or a longer Retry-After, up to a minute), so
 * later messages of the channel keep their order behind it; after the last try it is an `error`.
 * The job id goes with every try as the provider's idempotency key where the provider takes one
 * (our connector protocol). It keeps no state and needs no store (roles `all` and `worker`).
 */
export class ProviderSender implements Worker {
  readonly name = 'provider-sender';

  constructor(private readonly options: ProviderSenderOptions) {}

  async run(signal: AbortSignal): Promise<void> {
    const subscription: Subscription = this.options.bus.subscribe({
      stream: STREAM.outbound,
      group: CONSUMER_GROUP.sender,
      maxInFlight: this.options.maxInFlight ?? 32,
      handler: (message) => {
        const job = message.value as ProviderSendJob | ProviderDeleteJob | ProviderMessageActionJob;
        if (job.kind === 'message_action') return carryOutMessageAction(job, this.options, signal);
        return job.kind === 'delete_messages' ? this.handleDelete(job, signal) : this.handle(job, signal);
      },
    });
    await aborted(signal);
    await subscription.drain();
  }

  /** One job to its end: an outcome is published, or the signal aborted (the job stays uncommitted). */
  async handle(job: ProviderSendJob, signal: AbortSignal): Promise<void> {
    const { connectors, throttle, retryScheduleMs, logger } = this.options;
    const log = logger.child({ job: job.job_id, channel: job.channel_id, message: job.message_id });
    if (job.send === null || job.send === undefined) {
      await this.publishOutcome(
        job,
        {
          outcome: 'error',
          error: { code: 'gone', title: job.gone_reason ?? 'The message or its channel no longer exists.' },
        },
        signal,
      );
      log.info('send job dropped: nothing left to send');
      return;
    }
    const withRequest = job as ProviderSendJob & { send: SendRequest };
    const connector = connectors.sender(job.send.provider);
    const spans = new ProviderCallSpans(job);
    for (let tries = 1; ; tries += 1) {
      const result = await throttle.run(
        job.channel_id,
        () => spans.send(tries, () => connector.send(withRequest)),
        signal,
      );
      if (result.kind === 'sent') {
        await this.publishOutcome(job, { outcome: 'sent', externalId: result.externalId }, signal);
        log.info({ provider: job.send.provider, tries }, 'message sent');
        if ('later' in result && result.later !== undefined)
          this.reportLater(job.channel_id, result.externalId, result.later);
        return;
      }
      const wait = retryPauseMs(retryScheduleMs, tries, result.retryAfterMs);
      if (result.permanent || wait === undefined) {
        const error = result.permanent
          ? result.error
          : { code: result.error.code, title: `${result.error.title} Gave up after ${tries} tries.` };
        await this.publishOutcome(job, { outcome: 'error', error }, signal);
        log.warn({ provider: job.send.provider, tries, error: error.code }, 'message not sent');
        return;
      }
      log.warn(
        { provider: job.send.provider, tries, error: result.error.code, retry_in_ms: wait },
        'send failed transiently; trying again',
      );
      await pause(wait, signal);
      // Stopping: leave the job uncommitted; the next sender tries it again with the same job id.
      if (signal.aborted) throw new Error('stopped while waiting to try a send again');
    }
  }

  /**
   * A delete job: the provider deletes the messages for everyone, tried again on transient failures
   * like a send. The gateway marked them deleted when the company asked (with their events); a
   * provider's final refusal is logged, and the messages stay deleted in the gateway.
   */
  async handleDelete(job: ProviderDeleteJob, signal: AbortSignal): Promise<void> {
    const log = this.options.logger.child({
      job: job.job_id,
      channel: job.channel_id,
      messages: job.message_ids.length,
    });
    if (job.request === null) return void log.info('delete job dropped: the channel or conversation is gone');
    const request = job.request;
    const connector = this.options.connectors.deleter();
    for (let tries = 1; ; tries += 1) {
      const result = await this.options.throttle.run(
        job.channel_id,
        () => connector.deleteMessages(request, job.job_id),
        signal,
      );
      if (result.kind === 'deleted')
        return void log.info({ provider: request.provider, tries }, 'messages deleted at the provider');
      const wait = retryPauseMs(this.options.retryScheduleMs, tries, result.retryAfterMs);
      if (result.permanent || wait === undefined)
        return void log.warn(
          { provider: request.provider, tries, error: result.error.code },
          'the provider did not delete the messages',
        );
      await pause(wait, signal);
      if (signal.aborted) throw new Error('stopped while waiting to try a delete again');
    }
  }

  private async publishOutcome(
    job: ProviderSendJob,
    result: { outcome: 'sent'; externalId: string } | { outcome: 'error'; error: ProviderError },
    signal: AbortSignal,
  ): Promise<void> {
    const item: IngestItem = {
      kind: 'send_outcome',
      messageId: job.message_id,
      jobId: job.job_id,
      v1Job: job.v1_job === true,
      outcome: result.outcome,
      externalId: result.outcome === 'sent' ? result.externalId : null,
      ...(result.outcome === 'error' ? { error: result.error } : {}),
      at: this.options.clock.now(),
    };
    const fact: InboundFact = { channel_id: job.channel_id, batch: { receipt: `send:${job.job_id}`, items: [item] } };
    // Publishing must not fail the job: that would send it again. Keep trying until it is out.
    await untilDone(
      'publishing a send outcome',
      () =>
        this.options.bus.publish(STREAM.inbound, [
          { key: String(job.channel_id), id: `outcome:${job.job_id}`, value: fact },
        ]),
      signal,
      this.options.logger,
    );
  }

  /** Delivery receipts a connector promised for later (the sandbox's), published when due. */
  private reportLater(channelId: number, externalId: string, later: readonly LaterStatus[]): void {
    for (const step of later) {
      publishFactLater(
        this.options.bus,
        channelId,
        [{ kind: 'status', externalId, status: step.status, at: Date.now() + step.afterMs }],
        step.afterMs,
        `${externalId}:${step.status}`,
        this.options.logger,
      );
    }
  }
}

/**
 * Publishes a fact on `gateway.inbound` after a delay, in memory (the sandbox's later news: lost
 * if the process stops first, as a real provider's would be without a retry).
 */
export function publishFactLater(
  bus: StreamBus,
  channelId: number,
  items: IngestItem[],
  afterMs: number,
  id: string,
  logger: Logger,
): void {
  const timer = setTimeout(() => {
    const fact: InboundFact = { channel_id: channelId, batch: { receipt: `fact:${id}`, items } };
    bus
      .publish(STREAM.inbound, [{ key: String(channelId), id: `fact:${id}`, value: fact }])
      .catch((error: unknown) => logger.warn({ err: error, channel: channelId }, 'could not publish a provider fact'));
  }, afterMs);
  timer.unref();
}
