/** A counting semaphore: at most `limit` holders at once, the rest wait in order. */
export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  /** Runs `work` once a slot is free, and frees the slot when it settles. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      // Hand the slot straight to the next waiter, so `active` never dips and lets a newcomer jump the queue.
      if (next) next();
      else this.active--;
    }
  }
}
