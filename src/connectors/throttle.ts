import { pause } from '../streams/stream.js';

interface ChannelSlot {
  active: number;
  waiting: (() => void)[];
  /** Token bucket: tokens left and when it was last refilled. */
  tokens: number;
  refilledAt: number;
}

/**
 * Per-channel limits toward providers (GATEWAY_PROVIDER_CHANNEL_CONCURRENCY, _RATE): at most
 * `concurrency` calls at once and `ratePerSecond` calls per second (bursts up to one second's
 * worth) per channel, in this process. Sends of one channel also arrive one at a time, in order,
 * from the stream (its key is the channel); the limits cover every provider call of a channel,
 * connection flows included.
 */
export class ChannelThrottle {
  private readonly slots = new Map<number, ChannelSlot>();

  constructor(
    private readonly concurrency: number,
    private readonly ratePerSecond: number,
  ) {}

  /** Runs fn within the channel's limits. */
  async run<T>(channelId: number, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const slot = this.slotOf(channelId);
    if (slot.active >= this.concurrency) await new Promise<void>((resolve) => slot.waiting.push(resolve));
    slot.active += 1;
    try {
      await this.takeToken(slot, signal);
      return await fn();
    } finally {
      slot.active -= 1;
      slot.waiting.shift()?.();
      if (slot.active === 0 && slot.waiting.length === 0 && slot.tokens >= this.burst()) this.slots.delete(channelId);
    }
  }

  private burst(): number {
    return Math.max(1, this.ratePerSecond);
  }

  private async takeToken(slot: ChannelSlot, signal?: AbortSignal): Promise<void> {
    for (;;) {
      const now = Date.now();
      slot.tokens = Math.min(this.burst(), slot.tokens + ((now - slot.refilledAt) / 1000) * this.ratePerSecond);
      slot.refilledAt = now;
      if (slot.tokens >= 1) {
        slot.tokens -= 1;
        return;
      }
      await pause(Math.ceil(((1 - slot.tokens) / this.ratePerSecond) * 1000), signal);
      if (signal?.aborted) throw new Error('aborted while waiting for the provider rate limit');
    }
  }

  private slotOf(channelId: number): ChannelSlot {
    let slot = this.slots.get(channelId);
    if (slot === undefined) {
      slot = { active: 0, waiting: [], tokens: this.burst(), refilledAt: Date.now() };
      this.slots.set(channelId, slot);
    }
    return slot;
  }
}
