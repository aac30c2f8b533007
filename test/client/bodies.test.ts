/**
 * Pending bodies held as bytes in shared slabs (bodies.ts): each comes back exactly, slabs are
 * freed as their bodies settle, and however the records around them settle, the slabs never hold
 * more than four times the pending bytes plus the current slab.
 */
import { describe, expect, it } from 'vitest';
import { BodyArena, bodyBytes, bodyText, SLAB_BYTES, type BodyHolder } from '../../src/client/bodies.js';

const holder = (body: string): BodyHolder => ({ body, slab: undefined, offset: 0, length: 0 });
const text = (h: BodyHolder) => bodyText(h);
/** A JSON body of exactly `bytes` ASCII bytes. */
const sized = (bytes: number, tag = 'x') => `{"p":"${tag.repeat(bytes - 8)}"}`;

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
    expect(held.every((h) => Buffer.isBuffer(bodyBytes(h)))).toBe(true);
    expect(held.map((h) => (bodyBytes(h) as Buffer).toString('utf8'))).toEqual(bodies);
  });

  it('keeps no view per body in a slab, only where its bytes are; a view made to send one still reads the same once it is released and the slab moved on', () => {
    const arena = new BodyArena();
    const held = Array.from({ length: 40 }, (_, i) => holder(sized(1024, String.fromCharCode(97 + (i % 26)))));
    for (const h of held) arena.store(h);
    expect(held.every((h) => h.body === undefined && h.slab !== undefined && h.length === 1024)).toBe(true);
    const sent = bodyBytes(held[0]) as Buffer; // as for a request under way
    for (const h of held) arena.release(h);
    for (let i = 0; i < 100; i++) arena.store(holder(sized(1024, 'z')));
    expect(sent.toString('utf8')).toBe(sized(1024, 'a'));
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

const bufferOf = (h: BodyHolder) => (bodyBytes(h) as Buffer).buffer;

describe('the body arena, slab by slab', () => {
  it('gives back every body intact, whatever its size and characters, where it falls across the end of a slab', () => {
    const arena = new BodyArena();
    const chars = ['a', 'é', '你', '👋'];
    const bodies: string[] = [];
    for (let i = 0; i < 400; i++) bodies.push(JSON.stringify({ i, text: chars[i % 4].repeat(37 + ((i * 131) % 2900)) }));
    const held = bodies.map((b) => {
      const h = holder(b);
      arena.store(h);
      return h;
    });
    expect(held.map(text)).toEqual(bodies);
    expect(arena.pendingBytes).toBe(held.filter((h) => h.slab !== undefined).reduce((sum, h) => sum + h.length, 0));
  });

  it('leaves a body it already holds as it is when asked to store it again', () => {
    const arena = new BodyArena();
    const h = holder('{"text":"once"}');
    arena.store(h);
    const where = [h.slab, h.offset, h.length];
    arena.store(h);
    expect([h.slab, h.offset, h.length]).toEqual(where);
    expect(text(h)).toBe('{"text":"once"}');
    expect(arena.pendingBytes).toBe(15);
  });

  it('puts a body of exactly a quarter of a slab in a slab, and one byte more in a buffer of its own', () => {
    const arena = new BodyArena();
    const quarter = holder(sized(SLAB_BYTES / 4));
    arena.store(quarter);
    expect(quarter.slab).toBeDefined();
    const more = holder(sized(SLAB_BYTES / 4 + 1));
    arena.store(more);
    expect(more.slab).toBeUndefined();
    expect(text(more)).toBe(sized(SLAB_BYTES / 4 + 1));
    expect(arena.slabBytes).toBe(SLAB_BYTES);
  });

  it('fills a slab to its last byte before starting another', () => {
    const arena = new BodyArena();
    const held = Array.from({ length: 33 }, (_, i) => holder(sized(1024, String.fromCharCode(97 + (i % 26)))));
    for (const h of held) arena.store(h);
    expect(new Set(held.slice(0, 32).map(bufferOf)).size).toBe(1);
    expect(bufferOf(held[32])).not.toBe(bufferOf(held[0]));
    expect(arena.slabBytes).toBe(2 * SLAB_BYTES);
  });

  it('ignores the release of a body with a buffer of its own, and a second release of any body', () => {
    const arena = new BodyArena();
    const big = holder(sized(SLAB_BYTES));
    const small = holder(sized(100));
    arena.store(big);
    arena.store(small);
    arena.release(big);
    arena.release(small);
    arena.release(small);
    expect(arena.pendingBytes).toBe(0);
    expect(arena.slabBytes).toBe(SLAB_BYTES);
  });

  it('keeps a full slab in place when a new one starts, and while a quarter or more of it is pending; below that, moves what is left', () => {
    const arena = new BodyArena();
    const first = Array.from({ length: 32 }, (_, i) => holder(sized(1024, String.fromCharCode(97 + (i % 26)))));
    for (const h of first) arena.store(h);
    const slab1 = bufferOf(first[0]);
    const next = holder(sized(1024, 'n'));
    arena.store(next); // slab 1 is full: a new slab starts; slab 1's bodies stay
    expect(first.every((h) => bufferOf(h) === slab1)).toBe(true);
    for (const h of first.slice(0, 23)) arena.release(h);
    expect(first.slice(23).every((h) => bufferOf(h) === slab1)).toBe(true); // 9 KiB pending: stays
    arena.release(first[23]);
    expect(first.slice(24).every((h) => bufferOf(h) === slab1)).toBe(true); // exactly a quarter: stays
    expect(arena.slabBytes).toBe(2 * SLAB_BYTES);
    arena.release(first[24]);
    // Less than a quarter: the 7 left move to the current slab, and slab 1 is freed.
    expect(first.slice(25).every((h) => bufferOf(h) === bufferOf(next))).toBe(true);
    expect(first.slice(25).map(text)).toEqual(first.slice(25).map((_, i) => sized(1024, String.fromCharCode(97 + ((i + 25) % 26)))));
    expect(arena.slabBytes).toBe(SLAB_BYTES);
    expect(arena.pendingBytes).toBe(8 * 1024);
  });

  it('keeps the slab it replaces in place while a quarter of it is pending, and moves the rest of one emptier', () => {
    for (const [released, moved] of [
      [24, false],
      [25, true],
    ] as const) {
      const arena = new BodyArena();
      const first = Array.from({ length: 32 }, () => holder(sized(1024)));
      for (const h of first) arena.store(h);
      const slab1 = bufferOf(first[0]);
      for (const h of first.slice(0, released)) arena.release(h); // slab 1 is current: nothing moves yet
      expect(first.slice(released).every((h) => bufferOf(h) === slab1)).toBe(true);
      const next = holder(sized(1024, 'n'));
      arena.store(next);
      expect(first.slice(released).every((h) => bufferOf(h) === slab1)).toBe(!moved);
      if (moved) expect(first.slice(released).every((h) => bufferOf(h) === bufferOf(next))).toBe(true);
      expect(arena.slabBytes).toBe(moved ? SLAB_BYTES : 2 * SLAB_BYTES);
      expect([...first.slice(released), next].map(text)).toEqual([...first.slice(released).map(() => sized(1024)), sized(1024, 'n')]);
    }
  });

  it('frees the slab it replaces when none of its bodies is pending, and starts a fresh one', () => {
    const arena = new BodyArena();
    const first = Array.from({ length: 32 }, () => holder(sized(1024)));
    for (const h of first) arena.store(h);
    const slab1 = bufferOf(first[0]);
    for (const h of first) arena.release(h);
    const next = holder(sized(1024, 'n'));
    arena.store(next);
    expect(text(next)).toBe(sized(1024, 'n'));
    expect(bufferOf(next)).not.toBe(slab1);
    expect(arena.slabBytes).toBe(SLAB_BYTES);
    expect(arena.pendingBytes).toBe(1024);
  });

  it('counts exactly the slabs still in use, whatever order bodies settle in', () => {
    const arena = new BodyArena();
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pending: { h: BodyHolder; body: string }[] = [];
    for (let step = 0; step < 6_000; step++) {
      if (pending.length === 0 || random() < 0.55) {
        const body = JSON.stringify({ step, pad: 'q'.repeat(Math.floor(random() * 3000)) });
        const h = holder(body);
        arena.store(h);
        pending.push({ h, body });
      } else {
        const [{ h }] = pending.splice(Math.floor(random() * pending.length), 1);
        arena.release(h);
      }
      const inSlabs = pending.filter(({ h }) => h.slab !== undefined);
      const slabsHeld = new Set(inSlabs.map(({ h }) => bufferOf(h))).size;
      const bytes = inSlabs.reduce((sum, { h }) => sum + h.length, 0);
      expect(arena.pendingBytes).toBe(bytes);
      expect(arena.slabBytes).toBeGreaterThanOrEqual(slabsHeld * SLAB_BYTES);
      expect(arena.slabBytes).toBeLessThanOrEqual((slabsHeld + 1) * SLAB_BYTES);
      expect(arena.slabBytes).toBeLessThanOrEqual(4 * bytes + SLAB_BYTES);
    }
    expect(pending.map(({ h }) => text(h))).toEqual(pending.map(({ body }) => body));
  });
});
