/**
 * The append-only NDJSON data file. Appends that arrive while a write is in progress are
 * written together in the next write (group commit), and each append's promise settles only
 * once its line is in the file. Loading tolerates a torn last line and any unreadable line.
 */
import { createReadStream } from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { TrackingEndpointError } from '../errors.js';
import { acquireLock } from './lock.js';
import { parseRecordLine } from './record-line.js';
import type { StoredRecord } from '../types.js';

const NEWLINE = 0x0a;

/** What was read from the data file on open. */
export interface JournalContents {
  /** Records in file order. */
  records: StoredRecord[];
  /** 1-based line numbers of lines that were not complete records (skipped). */
  skippedLines: number[];
  /** False when the file's last byte is not a newline (a torn write): the next append starts a new line. */
  endsWithNewline: boolean;
}

async function load(file: string): Promise<JournalContents> {
  const contents: JournalContents = { records: [], skippedLines: [], endsWithNewline: true };
  let lineNumber = 0;
  let carry: Buffer[] = [];
  const take = (bytes: Buffer) => {
    lineNumber++;
    if (bytes.length === 0) return;
    const record = parseRecordLine(bytes.toString('utf8'));
    if (record) contents.records.push(record);
    else contents.skippedLines.push(lineNumber);
  };
  try {
    for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
      let start = 0;
      for (let nl = chunk.indexOf(NEWLINE); nl !== -1; nl = chunk.indexOf(NEWLINE, start)) {
        const piece = chunk.subarray(start, nl);
        take(carry.length > 0 ? Buffer.concat([...carry, piece]) : piece);
        carry = [];
        start = nl + 1;
      }
      if (start < chunk.length) carry.push(chunk.subarray(start));
      contents.endsWithNewline = start === chunk.length;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return contents;
    throw error;
  }
  if (carry.length > 0) take(Buffer.concat(carry));
  return contents;
}

async function writeAll(handle: FileHandle, data: Buffer): Promise<void> {
  let offset = 0;
  while (offset < data.length) {
    const { bytesWritten } = await handle.write(data, offset, data.length - offset, null);
    offset += bytesWritten;
  }
}

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** An open data file. Create with `Journal.open`. */
export class Journal {
  private pending: string[] = [];
  private waiters: Waiter[] = [];
  private writing: Promise<void> | undefined;
  private closed = false;

  private constructor(
    private readonly handle: FileHandle,
    private readonly release: () => Promise<void>,
    private readonly fsync: boolean,
    private needsNewline: boolean,
  ) {}

  /**
   * Opens (creating it and its folder if needed) and reads the data file, and takes its lock.
   * Rejects with a `TrackingEndpointError` when the file cannot be read or written, or is in use.
   */
  static async open(file: string, options: { fsync: boolean }): Promise<{ journal: Journal; contents: JournalContents }> {
    let release: (() => Promise<void>) | undefined;
    try {
      // The data holds conversations: readable by the endpoint's user only (0700 folder, 0600 file).
      await mkdir(dirname(file), { recursive: true, mode: 0o700 });
      release = await acquireLock(file);
      const contents = await load(file);
      const handle = await open(file, 'a', 0o600);
      await handle.chmod(0o600).catch(() => undefined); // a file made by an older version, or by hand

      return { journal: new Journal(handle, release, options.fsync, !contents.endsWithNewline), contents };
    } catch (error) {
      await release?.();
      if (error instanceof TrackingEndpointError) throw error;
      const reason = (error as Error).message;
      throw new TrackingEndpointError(`Cannot use the data file ${file}: ${reason}. Check the path and its permissions, or choose another file (--data).`, { cause: error });
    }
  }

  /**
   * Appends one line (without its newline). Resolves once the line is written to the file
   * (and flushed to disk when `fsync` is on); rejects with the file system's error otherwise.
   */
  append(line: string): Promise<void> {
    if (this.closed) return Promise.reject(new TrackingEndpointError('The data file is closed.'));
    return new Promise((resolve, reject) => {
      this.pending.push(line);
      this.waiters.push({ resolve, reject });
      this.writing ??= this.drain();
    });
  }

  private async drain(): Promise<void> {
    while (this.pending.length > 0) {
      const lines = this.pending;
      const waiters = this.waiters;
      this.pending = [];
      this.waiters = [];
      const text = `${this.needsNewline ? '\n' : ''}${lines.join('\n')}\n`;
      try {
        await writeAll(this.handle, Buffer.from(text, 'utf8'));
        if (this.fsync) await this.handle.datasync();
        this.needsNewline = false;
        for (const waiter of waiters) waiter.resolve();
      } catch (error) {
        this.needsNewline = true;
        for (const waiter of waiters) waiter.reject(error);
      }
    }
    this.writing = undefined;
  }

  /** Waits for writes in progress, then closes the file and releases its lock. Safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writing;
    await this.handle.close();
    await this.release();
  }
}
