/**
 * Opt-in disk persistence (`persistDir`): records that could not be delivered are written to
 * disk instead of being lost, and re-sent, paced, by the next client started with the same
 * directory (see replay.ts). Files are created with mode 0600.
 *
 * What is written: the platform, the record type, when the record was logged, its idempotency key
 * (re-sent with it, so that the endpoint stores it once even if an earlier attempt was stored),
 * and the JSON body, one record per line. Never the API key (the next client rebuilds the URL with its own). A
 * messenger outgoing record's `qs.access_token` is part of its body and is written as is, in a
 * 0600 file.
 *
 * Order: each line carries `at`, `[client start, sequence]`, set when the record was logged. A
 * client that claims the files sorts their records by it, so a user's records are re-sent in the
 * order they were logged, whichever file and whichever process wrote them.
 *
 * Claims: a client takes over files by renaming them `….claimed-<pid>-<process token>`. A claim
 * is dead, and taken over, when its token is not this process's but its PID is (an earlier process
 * that had this PID, such as PID 1 in a restarted container), when no process has its PID, or when
 * it has not been touched for `CLAIM_STALE_MS` (its PID now belongs to some other process: a live
 * claimant touches its claims every `CLAIM_TOUCH_MS`).
 *
 * Size: the files in the directory, claimed ones included, hold at most `maxBytes`, with one
 * exception: when a client is done with the files it claimed, it first writes what it still has to
 * send from them to a file of its own and then deletes them, so for that moment the directory holds
 * both (at most twice what was claimed). A crash then costs duplicates, never records.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PLATFORM_KINDS, RECORD_TYPES, isIdempotencyKey, type PlatformKind, type RecordType } from '../protocol/index.js';

/** When a record was logged: the start time of the client that logged it (ms since 1970), and its sequence number there. */
export type SavedAt = readonly [startedAt: number, seq: number];

/** A record as stored on disk. */
export interface PersistedRecord {
  platform: PlatformKind;
  type: RecordType;
  /** When it was logged: what orders a user's saved records. */
  at: SavedAt;
  /** Its idempotency key: the `Idempotency-Key` it was (or would have been) sent with. */
  key: string;
  /** The serialized JSON body, exactly as it would be sent. */
  body: string;
}

/** A saved record read back, with the user whose lane it goes on. */
export interface SavedRecord extends PersistedRecord {
  userId: string;
}

/**
 * Checks a saved record as a new one would be checked: returns the user it belongs to, or why it
 * cannot be re-sent (such as `not a valid sms incoming record`).
 */
export type SavedRecordCheck = (record: { platform: PlatformKind; type: RecordType; body: unknown }) => { userId: string } | { problem: string };

/** A live claimant touches its claimed files this often. */
export const CLAIM_TOUCH_MS = 60_000;
/** A claim untouched for this long is dead, whatever its PID. */
export const CLAIM_STALE_MS = 10 * 60_000;

const SUFFIX = '.ndjson';
const CLAIMED = '.claimed-';
/** Tells this process's claims from those of an earlier process that had the same PID. Set once per process. */
const PROCESS_TOKEN = randomBytes(6).toString('hex');

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the file `name` in the directory is free to claim: unclaimed, or claimed by a process that is gone. */
function isClaimable(name: string, full: string): boolean {
  if (name.endsWith(SUFFIX)) return true;
  const at = name.indexOf(CLAIMED);
  if (at < 0) return false;
  // `<pid>-<process token>`, or `<pid>` alone (no token: never this process's).
  const [pidText, token] = name.slice(at + CLAIMED.length).split('-');
  if (token === PROCESS_TOKEN) return false; // ours: a replay of this process is under way
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || !isAlive(pid)) return true;
  try {
    return Date.now() - fs.statSync(full).mtimeMs > CLAIM_STALE_MS;
  } catch {
    return false;
  }
}

/** What `claim` returns: the saved records it could read (in the order they were logged), the lines it skipped (by reason), and what to do when done. */
export interface Claimed {
  records: SavedRecord[];
  /** Lines that were skipped, counted by reason (`unreadable`, `unknown platform`, `unknown type`, `no body`, or the check's reason). */
  skipped: Record<string, number>;
  /**
   * Done with the claimed files: writes `keep` (their records still to be sent) to this store's
   * own file, then deletes them. `keep` is not held to `maxBytes`: it is already on disk. Returns
   * how many of `keep` were written; when the write fails, the files are left unclaimed instead
   * of deleted, so nothing is lost.
   */
  release(keep: readonly PersistedRecord[]): number;
  /** Marks the claimed files as in use (see `CLAIM_STALE_MS`). */
  touch(): void;
}

const KINDS: ReadonlySet<string> = new Set(PLATFORM_KINDS);
const TYPES: ReadonlySet<string> = new Set(RECORD_TYPES);

/** Why a saved line cannot be re-sent, or `undefined` when its shape is right. */
function problemOf(parsed: unknown): string | undefined {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return 'unreadable';
  const { platform, type, body } = parsed as Record<string, unknown>;
  // A set holds strings only: any other value is not in it.
  if (!KINDS.has(platform as string)) return 'unknown platform';
  if (!TYPES.has(type as string)) return 'unknown type';
  if (body === undefined) return 'no body';
  return undefined;
}

/** A line's `at`, or `[0, 0]` (before everything) for a line written before lines had one. */
function atOf(value: unknown): SavedAt {
  if (Array.isArray(value) && value.length === 2 && value.every((n) => Number.isFinite(n))) return [value[0], value[1]];
  return [0, 0];
}

/** A line's idempotency key, or a new one for a line written before lines had one (or whose key the endpoint would refuse). */
function keyOf(value: unknown): string {
  return typeof value === 'string' && isIdempotencyKey(value) ? value : randomUUID();
}

function lineOf(record: PersistedRecord): string {
  return `{"platform":${JSON.stringify(record.platform)},"type":${JSON.stringify(record.type)},"at":[${record.at[0]},${record.at[1]}],"key":${JSON.stringify(record.key)},"body":${record.body}}\n`;
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
    this.file = path.join(dir, `records-${process.pid}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}${SUFFIX}`);
    this.bytes = this.totalSize();
  }

  /**
   * Appends records synchronously (so it works inside a signal handler or at exit). Returns how
   * many were written, from the first: the rest did not fit under `maxBytes` (unless `unbounded`)
   * or the write failed.
   */
  save(records: readonly PersistedRecord[], unbounded = false): number {
    // Every write starts on a line of its own: a write torn by a full disk or a crash can never
    // glue the next record to its remains (the reader skips the torn line and the empty ones).
    let text = '\n';
    let size = 1;
    let count = 0;
    for (const record of records) {
      const line = lineOf(record);
      const lineSize = Buffer.byteLength(line);
      if (!unbounded && this.bytes + size + lineSize > this.maxBytes) break;
      text += line;
      size += lineSize;
      count++;
    }
    if (count === 0) return 0;
    try {
      fs.appendFileSync(this.file, text, { mode: 0o600 });
      this.bytes += size;
      return count;
    } catch {
      return 0;
    }
  }

  /**
   * Takes over the files earlier processes left (renaming them so two clients never send the
   * same file), and returns their records in the order they were logged. Torn, unreadable or
   * foreign lines (an unknown platform or type, no body, or a body `check` refuses) are skipped
   * and counted in `skipped`, by reason; they never stop the rest.
   */
  claim(check: SavedRecordCheck): Claimed {
    const claimed: string[] = [];
    for (const name of safeReaddir(this.dir)) {
      const full = path.join(this.dir, name);
      if (full === this.file || !isClaimable(name, full)) continue;
      const base = name.includes(CLAIMED) ? name.slice(0, name.indexOf(CLAIMED)) : name;
      const target = path.join(this.dir, `${base}${CLAIMED}${process.pid}-${PROCESS_TOKEN}`);
      try {
        fs.renameSync(full, target);
        claimed.push(target);
      } catch {
        // Another process claimed it first.
      }
    }
    const touch = () => {
      const now = new Date();
      for (const file of claimed) {
        try {
          fs.utimesSync(file, now, now);
        } catch {
          // Gone: nothing to keep alive.
        }
      }
    };
    touch();
    const records: SavedRecord[] = [];
    const skipped: Record<string, number> = {};
    const skip = (reason: string) => void (skipped[reason] = (skipped[reason] ?? 0) + 1);
    for (const file of claimed) {
      let text: string;
      try {
        text = fs.readFileSync(file, 'utf8');
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
          // A line torn by a crash or a full disk mid-write: left undefined, problemOf calls it unreadable.
        }
        const problem = problemOf(parsed);
        if (problem !== undefined) {
          skip(problem);
          continue;
        }
        const record = parsed as { platform: PlatformKind; type: RecordType; at?: unknown; key?: unknown; body: unknown };
        const checked = check(record);
        if ('problem' in checked) {
          skip(checked.problem);
          continue;
        }
        records.push({ platform: record.platform, type: record.type, at: atOf(record.at), key: keyOf(record.key), body: JSON.stringify(record.body), userId: checked.userId });
      }
    }
    // Stable: records logged at the same moment keep their order in the files.
    records.sort((a, b) => a.at[0] - b.at[0] || a.at[1] - b.at[1]);
    // The claimed files count against maxBytes until they are deleted.
    this.bytes = this.totalSize();
    let released = false;
    return {
      records,
      skipped,
      touch,
      release: (keep) => {
        if (released) return 0;
        released = true;
        const written = this.save(keep, true); // nothing to keep: 0, and nothing written
        const moved = written === keep.length;
        for (const file of claimed) {
          try {
            // Moved: the files are done with. Not moved (a failed write): they are handed back
            // unclaimed, so no record is lost; the next claimant sends them (some a second time).
            if (moved) fs.unlinkSync(file);
            else fs.renameSync(file, file.slice(0, file.lastIndexOf(CLAIMED)));
          } catch {
            // Already gone.
          }
        }
        this.bytes = this.totalSize();
        return written;
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
    // Stryker disable next-line ArrayDeclaration: a name that is not a file of ours is neither claimed nor, gone, counted (its stat fails)
    return [];
  }
}
