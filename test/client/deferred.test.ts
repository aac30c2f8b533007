/**
 * Tasks run off the caller's path (deferred.ts): on a later turn of the event loop, in order, each
 * once; one that throws is reported and the others still run; `run()` (what `flush()` and `close()`
 * call) runs the waiting ones at once.
 */
import { describe, expect, it } from 'vitest';
import { DeferredTasks } from '../../src/client/deferred.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('deferred tasks', () => {
  it('run after the caller returns, in the order they came, each once', async () => {
    const errors: unknown[] = [];
    const tasks = new DeferredTasks((e) => errors.push(e));
    const ran: number[] = [];
    for (let i = 0; i < 3; i++) tasks.push(() => void ran.push(i));
    expect(ran).toEqual([]);
    expect(tasks.length).toBe(3);
    await nextTurn();
    expect(ran).toEqual([0, 1, 2]);
    expect(tasks.length).toBe(0);
    await nextTurn();
    expect(ran).toEqual([0, 1, 2]);
    expect(errors).toEqual([]);
  });

  it('hand a task that throws to onError, and still run the ones after it', async () => {
    const errors: unknown[] = [];
    const tasks = new DeferredTasks((e) => errors.push(e));
    const ran: string[] = [];
    const boom = new Error('mapping failed');
    tasks.push(() => void ran.push('a'));
    tasks.push(() => {
      throw boom;
    });
    tasks.push(() => void ran.push('c'));
    await nextTurn();
    expect(ran).toEqual(['a', 'c']);
    expect(errors).toEqual([boom]);
  });

  it('run at once on run(), and not again on the turn they were scheduled for', async () => {
    const tasks = new DeferredTasks(() => undefined);
    let runs = 0;
    tasks.push(() => void runs++);
    tasks.run();
    expect(runs).toBe(1);
    expect(tasks.length).toBe(0);
    await nextTurn();
    expect(runs).toBe(1);
    // A task pushed after run() is scheduled again.
    tasks.push(() => void runs++);
    await nextTurn();
    expect(runs).toBe(2);
  });

  it('run a task pushed by a running task on a later turn, also when several were waiting', async () => {
    const tasks = new DeferredTasks(() => undefined);
    const ran: string[] = [];
    tasks.push(() => {
      ran.push('first');
      tasks.push(() => void ran.push('pushed'));
    });
    tasks.push(() => void ran.push('second'));
    tasks.push(() => void ran.push('third'));
    await nextTurn();
    expect(ran).toEqual(['first', 'second', 'third']);
    expect(tasks.length).toBe(1);
    await nextTurn();
    expect(ran).toEqual(['first', 'second', 'third', 'pushed']);
  });

  it('run a task pushed by a running task on a later turn, not lost', async () => {
    const tasks = new DeferredTasks(() => undefined);
    const ran: string[] = [];
    tasks.push(() => {
      ran.push('first');
      tasks.push(() => void ran.push('second'));
    });
    await nextTurn();
    expect(ran).toEqual(['first']);
    expect(tasks.length).toBe(1);
    await nextTurn();
    expect(ran).toEqual(['first', 'second']);
  });
});
