/**
 * Pending bodies held as bytes in shared slabs (bodies.ts): each comes back exactly, slabs are
 * freed as their bodies settle, and however the records around them settle, the slabs never hold
 * more than four times the pending bytes plus the current slab.
 */
import { describe, expect, it } from 'vitest';
import { BodyArena, SLAB_BYTES, type BodyHolder } from '../../src/client/bodies.js';

const holder = (body: string): BodyHolder => ({ body, slab: undefined });
const text = (h: BodyHolder) => (h.body as Buffer).toString('utf8');

describe('the body arena', () => {
  it('gives back each body byte for byte, whatever its characters', () => {
    const arena = new BodyArena();
    const bodies = ['{"text":"héllo"}', '{"text":"👋 مرحبا 你好"}', '{}', JSON.stringify({ text: 'x'.repeat(5000) })];
    const held = bodies.map((b) => {
      const h = holder(b);
      arena.store(h);
      return h;
    });
    expect(held.map(text)).toEqual(bodies);
    expect(held.every((h) => Buffer.isBuffer(h.body))).toBe(true);
  });

  it('gives a body larger than a quarter of a slab a buffer of its own', () => {
    const arena = new BodyArena();
    const big = holder(JSON.stringify({ text: 'y'.repeat(SLAB_BYTES) }));
    arena.store(big);
    expect(big.slab).toBeUndefined();
    expect(arena.slabBytes).toBe(0);
    expect(text(big)).toContain('yyyy');
  });

  it('frees every slab once every body is settled', () => {
    const arena = new BodyArena();
    const held = Array.from({ length: 1000 }, (_, i) => holder(JSON.stringify({ text: `record ${i}`, pad: 'z'.repeat(400) })));
    for (const h of held) arena.store(h);
    expect(arena.slabBytes).toBeGreaterThan(10 * SLAB_BYTES);
    for (const h of held) arena.release(h);
    expect(arena.pendingBytes).toBe(0);
    expect(arena.slabBytes).toBeLessThanOrEqual(SLAB_BYTES); // the current slab
  });

  it('holds at most four times the pending bytes (plus the current slab) when one record in twenty stays pending', () => {
    const arena = new BodyArena();
    const kept: BodyHolder[] = [];
    for (let i = 0; i < 20_000; i++) {
      const h = holder(JSON.stringify({ text: `record ${i}`, userId: `user-${i % 20}`, pad: 'p'.repeat(400) }));
      arena.store(h);
      if (i % 20 === 0) kept.push(h);
      else arena.release(h);
      expect(arena.slabBytes).toBeLessThanOrEqual(4 * arena.pendingBytes + SLAB_BYTES);
    }
    // The records still pending were moved out of sparse slabs and read back unchanged.
    expect(kept.map((h) => JSON.parse(text(h)).text)).toEqual(Array.from({ length: 1000 }, (_, k) => `record ${20 * k}`));
    for (const h of kept) arena.release(h);
    expect(arena.slabBytes).toBeLessThanOrEqual(SLAB_BYTES);
  });
});
