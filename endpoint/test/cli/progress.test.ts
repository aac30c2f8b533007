import { describe, expect, it } from 'vitest';
import { ProgressBar } from '../../src/cli/progress.js';

function stream(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, stream: { isTTY, columns: 80, write: (chunk: string) => writes.push(chunk) > 0 } as unknown as NodeJS.WritableStream & { isTTY: boolean } };
}

describe('ProgressBar', () => {
  it('draws a bar with percent and counts on a terminal, and erases it when done', () => {
    const { writes, stream: tty } = stream(true);
    const bar = new ProgressBar(tty, 4, 'Importing x.csv', 0);
    bar.update(1);
    bar.update(4);
    bar.done();
    expect(writes[0]).toMatch(/^\rImporting x\.csv \[#+-+\] {2}25% 1\/4$/);
    expect(writes[1]).toMatch(/\[#+\] 100% 4\/4$/);
    expect(writes[2]).toBe('\r\x1b[K');
  });

  it('redraws at most once per interval, but always at 100%', () => {
    const { writes, stream: tty } = stream(true);
    const bar = new ProgressBar(tty, 100, 'x', 60_000);
    for (let i = 1; i <= 100; i++) bar.update(i);
    expect(writes).toHaveLength(2);
  });

  it('writes nothing when the stream is not a terminal', () => {
    const { writes, stream: pipe } = stream(false);
    const bar = new ProgressBar(pipe, 4, 'x', 0);
    bar.update(2);
    bar.done();
    expect(writes).toEqual([]);
  });
});
