/**
 * One bucket's sliding log in a few bytes per admission: each entry of a Uint32Array packs an
 * admission time (milliseconds after `base`) and how many admissions share that millisecond. The
 * clock has millisecond resolution, so this is the exact log, only smaller: 4 bytes per distinct
 * millisecond, at most min(quota, window in ms) entries whatever the quota (60,000 entries, 240 KB, for
 * a 60 s window even at a quota of 1,000,000).
 */
export class CompactLog {
  /** Live admissions (entries from `head` to `tail`). */
  held = 0;
  private entries = new Uint32Array(4);
  private head = 0;
  private tail = 0;
  private base = 0;
  /** Entries pack `offset * countRange + (count - 1)`. */
  private readonly countRange: number;
  private readonly offsetLimit: number;

  constructor(readonly windowMs: number) {
    // Offsets must reach twice the window (they are rebased to the oldest live admission); the rest of
    // the 32 bits count admissions in one millisecond (a fuller millisecond takes another entry).
    const offsetBits = Math.max(1, Math.ceil(Math.log2(2 * windowMs + 1)));
    this.countRange = 2 ** Math.max(1, 32 - offsetBits);
    this.offsetLimit = 2 ** Math.min(31, offsetBits);
  }

  private timeAt(index: number): number {
    return this.base + Math.floor((this.entries[index] as number) / this.countRange);
  }

  private countAt(index: number): number {
    return ((this.entries[index] as number) % this.countRange) + 1;
  }

  /** Drops admissions that no longer hold a slot at `now`. */
  expire(now: number): void {
    while (this.head < this.tail && this.timeAt(this.head) + this.windowMs <= now) {
      this.held -= this.countAt(this.head);
      this.head++;
    }
    if (this.head === this.tail) this.head = this.tail = 0;
  }

  /** Time of the oldest live admission, if any. */
  oldest(): number | undefined {
    return this.head < this.tail ? this.timeAt(this.head) : undefined;
  }

  /** Time of the newest live admission, if any. */
  newest(): number | undefined {
    return this.head < this.tail ? this.timeAt(this.tail - 1) : undefined;
  }

  /**
   * Time of the admission at position `index` from the oldest (0 = the oldest), if held. Walks the
   * entries from the oldest: a stacked or costly request that does not fit asks where its slot frees.
   */
  timeOfIndex(index: number): number | undefined {
    let seen = 0;
    for (let i = this.head; i < this.tail; i++) {
      seen += this.countAt(i);
      if (seen > index) return this.timeAt(i);
    }
    return undefined;
  }

  /** Records `count` admissions (default one) at `now` (never earlier than the newest). */
  add(now: number, count = 1): void {
    for (let i = 0; i < count; i++) this.addOne(now);
  }

  private addOne(now: number): void {
    this.held++;
    const last = this.tail - 1;
    if (last >= this.head && this.timeAt(last) === now && this.countAt(last) < this.countRange) {
      this.entries[last] = (this.entries[last] as number) + 1;
      return;
    }
    if (this.head === this.tail) this.base = now;
    else if (now - this.base >= this.offsetLimit) this.rebase();
    if (this.tail === this.entries.length) this.makeRoom();
    this.entries[this.tail++] = (now - this.base) * this.countRange;
  }

  /** Moves `base` to the oldest live admission, so offsets stay within the window. */
  private rebase(): void {
    const shift = this.timeAt(this.head) - this.base;
    for (let i = this.head; i < this.tail; i++) {
      this.entries[i] = (this.entries[i] as number) - shift * this.countRange;
    }
    this.base += shift;
  }

  /** Slides live entries to the front, or doubles the array when they fill most of it. */
  private makeRoom(): void {
    const live = this.tail - this.head;
    if (live * 2 <= this.entries.length) {
      this.entries.copyWithin(0, this.head, this.tail);
    } else {
      const grown = new Uint32Array(this.entries.length * 2);
      grown.set(this.entries.subarray(this.head, this.tail));
      this.entries = grown;
    }
    this.head = 0;
    this.tail = live;
  }

  /** Bytes of admission data held (the array's capacity), for the memory benchmark. */
  get capacityBytes(): number {
    return this.entries.byteLength;
  }
}
