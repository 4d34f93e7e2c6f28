/** Thrown by `Semaphore.run` when the wait queue is full: the caller should refuse, not wait. */
export class SemaphoreFullError extends Error {
  constructor(readonly waiting: number) {
    super(`${waiting} callers are already waiting for a slot`);
    this.name = 'SemaphoreFullError';
  }
}

/**
 * A counting semaphore: at most `limit` holders at once, the rest wait in order. At most
 * `maxWaiting` may wait; beyond that `run` throws SemaphoreFullError at once, so that a flood
 * is refused quickly instead of queueing without bound (and delaying every later caller).
 */
export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly limit: number,
    private readonly maxWaiting = Number.POSITIVE_INFINITY,
  ) {}

  /**
   * Runs `work` once a slot is free, and frees the slot when it
   * settles. Throws SemaphoreFullError when the queue is full.
   */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) {
      if (this.waiting.length >= this.maxWaiting) throw new SemaphoreFullError(this.waiting.length);
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else this.active++;
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
