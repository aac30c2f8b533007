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
import { PLATFORM_KINDS, RECORD_TYPES, type PlatformKind, type RecordType } from '../protocol/index.js';

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

/** What `claim` returns: the saved records it could read, the lines it skipped (by reason), and the function that deletes the files. */
export interface Claimed {
  records: PersistedRecord[];
  /** Lines that were skipped, counted by reason (`unreadable`, `unknown platform`, `unknown type`, `no body`). */
  skipped: Record<string, number>;
  release(): void;
}

const KINDS: ReadonlySet<string> = new Set(PLATFORM_KINDS);
const TYPES: ReadonlySet<string> = new Set(RECORD_TYPES);

/** Why a saved line cannot be re-sent, or `undefined` when it can. */
function problemOf(parsed: unknown): string | undefined {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return 'unreadable';
  const { platform, type, body } = parsed as Record<string, unknown>;
  if (typeof platform !== 'string' || !KINDS.has(platform)) return 'unknown platform';
  if (typeof type !== 'string' || !TYPES.has(type)) return 'unknown type';
  if (body === undefined) return 'no body';
  return undefined;
}

/** Writes undeliverable records to a directory and reads back what an earlier process left there. */
export class UndeliveredStore {
  private readonly file: string;
  private bytes: number;
  /** Bytes of the files this process claimed and is re-sending: not counted against `maxBytes` (their records are counted again if they are saved again). */
  private claimedBytes = 0;

  /**
   * @param dir created if missing (mode 0700).
   * @param maxBytes total size of all files in `dir` at most; `save` refuses past it.
   */
  constructor(
    private readonly dir: string,
    private readonly maxBytes: number,
  ) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.file = path.join(dir, `records-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}${SUFFIX}`);
    this.bytes = this.totalSize();
  }

  /**
   * Appends records synchronously (so it works inside a signal handler or at exit). Returns how
   * many were written; the rest did not fit under `maxBytes` or the write failed.
   */
  save(records: readonly PersistedRecord[]): number {
    // Every write starts on a line of its own: a write torn by a full disk or a crash can never
    // glue the next record to its remains (the reader skips the torn line and the empty ones).
    let text = '\n';
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
   * records are settled. Torn, unreadable or foreign lines (an unknown platform or type, no body)
   * are skipped and counted in `skipped`, by reason; they never stop the rest.
   */
  claim(): Claimed {
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
    const skipped: Record<string, number> = {};
    const skip = (reason: string) => void (skipped[reason] = (skipped[reason] ?? 0) + 1);
    for (const file of claimed) {
      let text: string;
      try {
        text = fs.readFileSync(file, 'utf8');
        this.claimedBytes += Buffer.byteLength(text);
      } catch {
        skip('unreadable');
        continue;
      }
      for (const line of text.split('\n')) {
        if (line.trim().length === 0) continue;
        let parsed: unknown;
        try {
          parsed = JSON.parse(line);
        } catch {
          skip('unreadable'); // a line torn by a crash or a full disk mid-write
          continue;
        }
        const problem = problemOf(parsed);
        if (problem !== undefined) {
          skip(problem);
          continue;
        }
        const record = parsed as { platform: PlatformKind; type: RecordType; body: unknown };
        records.push({ platform: record.platform, type: record.type, body: JSON.stringify(record.body) });
      }
    }
    // The claimed files are being re-sent: what fails again is saved again and counted then.
    this.bytes = Math.max(0, this.totalSize() - this.claimedBytes);
    return {
      records,
      skipped,
      release: () => {
        for (const file of claimed) {
          try {
            fs.unlinkSync(file);
          } catch {
            // Already gone.
          }
        }
        this.claimedBytes = 0;
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
