// A steady load of provider callbacks on the fault suite's deployment: bot-style updates, one new
// message each, spread over the companies, posted at a fixed rate whatever the gateway is going
// through. A callback answered 200 is accepted and must end up stored and announced by webhook. One
// refused or unanswered (a process killed) is the provider's to send again: with `providerRetries`
// the load does so, after the answer's Retry-After (else a second) and through the next entry URL,
// as a provider behind a load balancer would; without it, the callback is dropped and not counted.
import type { Receiver } from '../helpers/receiver.js';
import type { Company } from './fault-cluster.js';

export interface AcceptedCallback {
  n: number;
  channelId: number;
  /** The external id of the message it creates: `<chat id>:<message id>`. */
  externalId: string;
  acceptedAt: number;
}

/** One try of a callback: where it went, when, how long its answer took, and the answer. */
export interface CallbackAttempt {
  n: number;
  channelId: number;
  /** Index of the entry URL it went to. */
  entry: number;
  startedAt: number;
  ms: number;
  /** The answer's status; 0 when none came (refused, reset or timed out). */
  status: number;
  /** The answer's Retry-After in seconds, if it had one. */
  retryAfter: number | null;
}

/** What the load posts to: the companies, the receiver of their webhooks and where callbacks enter. */
export interface LoadTarget {
  readonly companies: readonly Company[];
  readonly receiver: Receiver;
  /** Base URLs that take callbacks (a core, or the fronts): a callback's tries go to them in turn. */
  readonly entryUrls: readonly string[];
}

/** Senders per company: a few conversations each, so that their updates interleave. */
const SENDERS = 3;
/** A provider's retries of one callback stop this long after its first try. */
const GIVE_UP_MS = 120_000;

export class CallbackLoad {
  readonly accepted: AcceptedCallback[] = [];
  /** Every try of every callback, in the order their answers came. */
  readonly attempts: CallbackAttempt[] = [];
  /** Callbacks whose retries gave up without a 200 (providerRetries only). */
  readonly abandoned: number[] = [];
  refused = 0;
  private next = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  /** Message numbers whose message.create webhook arrived, read from the receiver as it grows. */
  private readonly delivered = new Set<number>();
  private receiverSeen = 0;

  constructor(
    private readonly target: LoadTarget,
    private readonly perSecond: number,
    private readonly options: { providerRetries?: boolean } = {},
  ) {}

  /** How many callbacks were posted (their first try). */
  get posted(): number {
    return this.next;
  }

  start(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => this.fire(), 1_000 / this.perSecond);
  }

  /** Stops posting and waits for the answers of callbacks still on their way. */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await Promise.all([...this.inFlight]);
  }

  /** Accepted callbacks whose message.create webhook has not arrived, of those accepted before `before`. */
  undelivered(before = Infinity): AcceptedCallback[] {
    const received = this.target.receiver.received;
    for (; this.receiverSeen < received.length; this.receiverSeen += 1) {
      const body = received[this.receiverSeen]!.body as {
        type?: string;
        event?: string;
        object?: { message?: string };
      };
      const match =
        body.type === 'message' && body.event === 'create' ? /^f:(\d+)$/.exec(body.object?.message ?? '') : null;
      if (match) this.delivered.add(Number(match[1]));
    }
    return this.accepted.filter((a) => a.acceptedAt < before && !this.delivered.has(a.n));
  }

  /**
   * Waits until the pipeline caught up again after `since`: the first moment at least `lagMs`
   * after it at which every callback accepted more than `lagMs` earlier has its webhook, and
   * callbacks are accepted again. Answers the time from `since` until that moment (the time to
   * settle), or throws after `timeoutMs` naming what is missing.
   */
  async settled(since: number, timeoutMs: number, lagMs = 1_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const now = Date.now();
      const missing = this.undelivered(now - lagMs);
      if (now - lagMs >= since && missing.length === 0 && this.accepted.some((a) => a.acceptedAt >= since))
        return now - since;
      if (now > deadline) {
        throw new Error(
          `not settled ${timeoutMs} ms after the fault: ${missing.length} accepted callbacks without webhook (oldest accepted ${now - (missing[0]?.acceptedAt ?? now)} ms ago)`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  private fire(): void {
    const n = (this.next += 1);
    const company = this.target.companies[n % this.target.companies.length]!;
    const chat = 500_000 + company.companyId * 10 + (n % SENDERS);
    const body = JSON.stringify({
      update_id: 2_000_000 + n,
      message: {
        message_id: n,
        from: { id: chat, is_bot: false, first_name: 'Fault', last_name: String(chat), username: `fault_${chat}` },
        chat: { id: chat, first_name: 'Fault', last_name: String(chat), username: `fault_${chat}`, type: 'private' },
        date: Math.floor(Date.now() / 1000),
        text: `f:${n}`,
      },
    });
    const posted = this.post(n, company, `${chat}:${n}`, body);
    this.inFlight.add(posted);
    void posted.finally(() => this.inFlight.delete(posted));
  }

  /** Posts one callback until it is answered 200, or once without providerRetries. */
  private async post(n: number, company: Company, externalId: string, body: string): Promise<void> {
    const firstAt = Date.now();
    for (let attempt = 0; ; attempt += 1) {
      const entry = (n + attempt) % this.target.entryUrls.length;
      const startedAt = Date.now();
      let status = 0;
      let retryAfter: number | null = null;
      try {
        const response = await fetch(`${this.target.entryUrls[entry]}/callbacks/chat_b/${company.channelId}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-bot-api-secret-token': company.secretToken },
          body,
          signal: AbortSignal.timeout(10_000),
        });
        await response.arrayBuffer();
        status = response.status;
        const header = response.headers.get('retry-after');
        retryAfter = header === null ? null : Number(header);
      } catch {
        // No answer: refused, reset or timed out.
      }
      const ms = Date.now() - startedAt;
      this.attempts.push({ n, channelId: company.channelId, entry, startedAt, ms, status, retryAfter });
      if (status === 200) {
        this.accepted.push({ n, channelId: company.channelId, externalId, acceptedAt: Date.now() });
        return;
      }
      this.refused += 1;
      if (this.options.providerRetries !== true) return;
      if (Date.now() - firstAt > GIVE_UP_MS) return void this.abandoned.push(n);
      await new Promise((resolve) => setTimeout(resolve, (retryAfter ?? 1) * 1_000));
    }
  }
}
