/**
 * Where the delivery queue keeps the bodies of pending records when its transport sends bytes (the
 * default transport does): as UTF-8 in shared slabs, outside the JavaScript heap. A backlog of
 * pending records then costs the garbage collector next to nothing; held as strings, every body
 * still pending at a collection of the young generation is copied, and copied again into the old
 * generation, where it later has to be collected again.
 *
 * Bodies are written one after the other into the current slab. A slab is freed once none of its
 * bodies is pending. A slab whose pending bodies fill less than a quarter of it has them moved to
 * the current slab (one user's records can stay pending long after the records around them went
 * out), so the slabs never hold more than four times the pending bytes, plus the current slab.
 */

/** Size of a slab. A body larger than a quarter of it gets a buffer of its own. */
export const SLAB_BYTES = 32 * 1024;
const OWN_BUFFER_BYTES = SLAB_BYTES / 4;

interface Slab {
  bytes: Buffer;
  /** Bytes of its bodies still pending. */
  pending: number;
  /** The records whose bodies it holds (some may be settled already). */
  holders: BodyHolder[];
}

/**
 * A record whose body the arena holds. Its bytes in a slab are known by where they are (`offset`,
 * `length`), not by a view of their own: a view is a heap object of about 100 bytes per pending
 * record; it is made only when the body is sent (`bytes`).
 */
export interface BodyHolder {
  /** The body: its text until `store`; then its bytes when it has a buffer of its own, else undefined (its bytes are in `slab`). */
  body: string | Buffer | undefined;
  /** The slab its bytes are in while it is pending (none for a body with a buffer of its own). */
  slab: Slab | undefined;
  /** Where its bytes start in `slab`, and how many there are. */
  offset: number;
  length: number;
}

/** The bytes (or text) of a holder's body, to send: a view of its slab, made now. */
export function bodyBytes(holder: BodyHolder): string | Buffer {
  const { slab } = holder;
  if (slab !== undefined) return slab.bytes.subarray(holder.offset, holder.offset + holder.length);
  return holder.body ?? '';
}

/** The text of a holder's body (for a record saved to disk, or sent by a transport that takes text). */
export function bodyText(holder: BodyHolder): string {
  const { slab, body } = holder;
  if (slab !== undefined) return slab.bytes.toString('utf8', holder.offset, holder.offset + holder.length);
  return typeof body === 'string' ? body : (body?.toString('utf8') ?? '');
}

export class BodyArena {
  private current: Slab | undefined;
  private offset = 0;
  /** Bytes in slabs not yet freed (the current one included), and bytes of pending bodies in them. */
  slabBytes = 0;
  pendingBytes = 0;

  /** Writes `holder`'s text body as bytes and points the holder at them. */
  store(holder: BodyHolder): void {
    const text = holder.body;
    if (typeof text !== 'string') return;
    let slab = this.current;
    // A character takes at most 3 bytes: most bodies are known to fit without being measured.
    if (slab === undefined || text.length * 3 > Math.min(OWN_BUFFER_BYTES, SLAB_BYTES - this.offset)) {
      const length = Buffer.byteLength(text);
      if (length > OWN_BUFFER_BYTES) {
        holder.body = Buffer.from(text);
        return;
      }
      slab = this.room(length);
    }
    const start = this.offset;
    const length = slab.bytes.write(text, start);
    this.offset += length;
    holder.body = undefined;
    this.place(holder, slab, start, length);
  }

  /**
   * The holder's record is settled: its bytes are no longer needed (a request still under way
   * keeps the view it was sent with; the slab's bytes are never written over).
   */
  release(holder: BodyHolder): void {
    const slab = holder.slab;
    if (slab === undefined) return;
    holder.slab = undefined;
    slab.pending -= holder.length;
    this.pendingBytes -= holder.length;
    if (slab === this.current) return;
    // A slab with nothing pending is compacted too: nothing to move, so it is only freed.
    if (slab.pending * 4 < SLAB_BYTES) this.compact(slab);
  }

  /** The current slab, with room for `length` bytes (a new one when it has not). */
  private room(length: number): Slab {
    const slab = this.current;
    if (slab !== undefined && SLAB_BYTES - this.offset >= length) return slab;
    if (slab !== undefined) {
      // The slab it replaces is now like any other: freed or compacted as its bodies settle.
      if (slab.pending * 4 < SLAB_BYTES) {
        this.current = undefined;
        this.compact(slab);
        // What was moved fills less than a quarter of the new slab, and `length` is at most a quarter: it fits.
        if (this.current !== undefined) return this.current;
      }
    }
    // Stryker disable next-line ArrayDeclaration: compact() skips an entry that is not a holder of this slab
    const next: Slab = { bytes: Buffer.allocUnsafeSlow(SLAB_BYTES), pending: 0, holders: [] };
    this.slabBytes += SLAB_BYTES;
    this.current = next;
    this.offset = 0;
    return next;
  }

  private place(holder: BodyHolder, slab: Slab, offset: number, length: number): void {
    holder.slab = slab;
    holder.offset = offset;
    holder.length = length;
    slab.pending += length;
    slab.holders.push(holder);
    this.pendingBytes += length;
  }

  /**
   * Moves the bodies of `slab` still pending to the current slab, and frees it (drops it: nothing
   * points at it any more). A slab is compacted once: no holder is left pointing at it.
   */
  private compact(slab: Slab): void {
    const holders = slab.holders;
    this.slabBytes -= SLAB_BYTES;
    for (const holder of holders) {
      if (holder.slab !== slab) continue;
      const { length } = holder;
      this.pendingBytes -= length;
      const target = this.room(length);
      const start = this.offset;
      slab.bytes.copy(target.bytes, start, holder.offset, holder.offset + length);
      this.offset += length;
      this.place(holder, target, start, length);
    }
  }
}
