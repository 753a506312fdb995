// Whether another program is writing to an open session: active from its append until it has been
// quiet for WRITER_ACTIVE_MS (docs/safety.md#appends). Its one listener hears it go quiet.

/** Another writer counts as active for this long after its last append. */
export const WRITER_ACTIVE_MS = 3000;

export class WriterActivity {
  private lastAppend = 0;
  private active = false;
  private timer: NodeJS.Timeout | undefined;

  /** `wentQuiet` runs when the writer has not appended for WRITER_ACTIVE_MS. */
  constructor(private readonly wentQuiet: () => void) {}

  get isActive(): boolean {
    return this.active;
  }

  /** Notes another writer's append; true when that makes the writer active (it was quiet). */
  appended(): boolean {
    this.lastAppend = Date.now();
    const flipped = !this.active;
    this.active = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (Date.now() - this.lastAppend >= WRITER_ACTIVE_MS - 10 && this.active) {
        this.active = false;
        this.wentQuiet();
      }
    }, WRITER_ACTIVE_MS);
    this.timer.unref();
    return flipped;
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
  }
}
