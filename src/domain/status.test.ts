import { describe, expect, it } from 'vitest';
import type { MessageStatus } from '../store/resources/messages.js';
import { nextStatus } from './status.js';

describe('nextStatus', () => {
  it('moves forward, skipping steps when the provider does', () => {
    expect(nextStatus('created', 'sent')).toBe('sent');
    expect(nextStatus('sent', 'delivered')).toBe('delivered');
    expect(nextStatus('delivered', 'read')).toBe('read');
    expect(nextStatus('created', 'read')).toBe('read');
    expect(nextStatus('sent', 'read')).toBe('read');
  });

  it('never moves backwards nor repeats', () => {
    const order: MessageStatus[] = ['created', 'sent', 'delivered', 'read'];
    for (const [i, current] of order.entries()) {
      for (const reported of order.slice(0, i + 1))
        expect(nextStatus(current, reported), `${current} ← ${reported}`).toBeNull();
    }
  });

  it('ends an undelivered send with error, which is terminal', () => {
    expect(nextStatus('created', 'error')).toBe('error');
    expect(nextStatus('sent', 'error')).toBe('error');
    expect(nextStatus('delivered', 'error')).toBeNull();
    expect(nextStatus('read', 'error')).toBeNull();
    for (const reported of ['sent', 'delivered', 'read', 'error'] as const)
      expect(nextStatus('error', reported)).toBeNull();
  });
});
