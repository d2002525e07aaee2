// A steady load of provider callbacks on the fault suite's core: bot-style updates, one new message
// each, spread over the companies, posted at a fixed rate whatever the gateway is going through.
// A callback answered 200 is accepted and must end up stored and announced by webhook; one refused
// or unanswered (the core killed) is the provider's to send again and is not counted.
import type { FaultCluster } from './fault-cluster.js';

export interface AcceptedCallback {
  n: number;
  channelId: number;
  /** The external id of the message it creates: `<chat id>:<message id>`. */
  externalId: string;
  acceptedAt: number;
}

/** Senders per company: a few conversations each, so that their updates interleave. */
const SENDERS = 3;

export class CallbackLoad {
  readonly accepted: AcceptedCallback[] = [];
  refused = 0;
  private next = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  /** Message numbers whose message.create webhook arrived, read from the receiver as it grows. */
  private readonly delivered = new Set<number>();
  private receiverSeen = 0;

  constructor(
    private readonly cluster: FaultCluster,
    private readonly perSecond: number,
  ) {}

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
    const received = this.cluster.receiver.received;
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
    const company = this.cluster.companies[n % this.cluster.companies.length]!;
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
    const posted = fetch(`${this.cluster.baseUrl}/callbacks/chat_b/${company.channelId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-bot-api-secret-token': company.secretToken },
      body,
      signal: AbortSignal.timeout(10_000),
    }).then(
      async (response) => {
        await response.arrayBuffer();
        if (response.status === 200)
          this.accepted.push({ n, channelId: company.channelId, externalId: `${chat}:${n}`, acceptedAt: Date.now() });
        else this.refused += 1;
      },
      () => {
        this.refused += 1;
      },
    );
    this.inFlight.add(posted);
    void posted.finally(() => this.inFlight.delete(posted));
  }
}
