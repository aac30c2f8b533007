/**
 * Opt-in disk persistence (`persistDir`): records that could not be delivered are written to
 * disk instead of being lost, and re-sent, paced, by the next client started with the same
 * directory. Files are created with mode 0600 and their total size is bounded.
 *
 * What is written: the platform, the record type and the JSON body, one record per line. Never
 * the API key (the next client rebuilds the URL with its own). A messenger outgoing record's
 * `qs.access_token` is part of its body and is written as is, in a 0600 file.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { PlatformKind, RecordType } from '../spec/index.js';

/** A record as stored on disk. */
export interface PersistedRecord {
  platform: PlatformKind;
  type: RecordType;
  /** The serialized JSON body, exactly as it would be sent. */
  body: string;
}

const SUFFIX = '.ndjson';
const CLAIMED = '.claimed-';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Writes undeliverable records to a directory and reads back what an earlier process left there. */
export class UndeliveredStore {
  private readonly file: string;
  private bytes: number;

  /**
   * @param dir created if missing (mode 0700).
   * @param maxBytes total size of all files in `dir` at most; `save` refuses past it.
   */
  constructor(
    private readonly dir: string,
    private readonly maxBytes: number,
  ) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.file = path.join(dir, `records-${process.pid}-${Date.now().toString(36)}${SUFFIX}`);
    this.bytes = this.totalSize();
  }

  /**
   * Appends records synchronously (so it works inside a signal handler or at exit). Returns how
   * many were written; the rest did not fit under `maxBytes` or the write failed.
   */
  save(records: readonly PersistedRecord[]): number {
    let text = '';
    let count = 0;
    for (const record of records) {
      const line = `{"platform":${JSON.stringify(record.platform)},"type":${JSON.stringify(record.type)},"body":${record.body}}\n`;
      const size = Buffer.byteLength(line);
      if (this.bytes + Buffer.byteLength(text) + size > this.maxBytes) break;
      text += line;
      count++;
    }
    if (count === 0) return 0;
    try {
      fs.appendFileSync(this.file, text, { mode: 0o600 });
      this.bytes += Buffer.byteLength(text);
      return count;
    } catch {
      return 0;
    }
  }

  /**
   * Takes over the files earlier processes left (renaming them so two clients never send the
   * same file), and returns their records with a function that deletes the files once the
   * records are settled. Torn or unreadable lines are skipped.
   */
  claim(): { records: PersistedRecord[]; release(): void } {
    const claimed: string[] = [];
    for (const name of safeReaddir(this.dir)) {
      const full = path.join(this.dir, name);
      if (full === this.file) continue;
      const claimedBy = name.includes(CLAIMED) ? Number(name.split(CLAIMED)[1]?.split('-')[0]) : undefined;
      const orphan = name.endsWith(SUFFIX) || (claimedBy !== undefined && claimedBy !== process.pid && !isAlive(claimedBy));
      if (!orphan) continue;
      const base = name.includes(CLAIMED) ? name.slice(0, name.indexOf(CLAIMED)) : name;
      const target = path.join(this.dir, `${base}${CLAIMED}${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
      try {
        fs.renameSync(full, target);
        claimed.push(target);
      } catch {
        // Another process claimed it first.
      }
    }
    const records: PersistedRecord[] = [];
    for (const file of claimed) {
      let text: string;
      try {
        text = fs.readFileSync(file, 'utf8');
      } catch {
        continue;
      }
      for (const line of text.split('\n')) {
        if (line.length === 0) continue;
        try {
          const parsed = JSON.parse(line) as { platform: PlatformKind; type: RecordType; body: unknown };
          records.push({ platform: parsed.platform, type: parsed.type, body: JSON.stringify(parsed.body) });
        } catch {
          // A line torn by a crash mid-write: skip it.
        }
      }
    }
    return {
      records,
      release: () => {
        for (const file of claimed) {
          try {
            fs.unlinkSync(file);
          } catch {
            // Already gone.
          }
        }
        this.bytes = this.totalSize();
      },
    };
  }

  private totalSize(): number {
    let total = 0;
    for (const name of safeReaddir(this.dir)) {
      try {
        total += fs.statSync(path.join(this.dir, name)).size;
      } catch {
        // Removed meanwhile.
      }
    }
    return total;
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}
