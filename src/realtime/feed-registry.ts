/**
 * The feeds of one process, one per project with open streams, each loaded once (its start in
 * the log read from the database) and shared by every stream of the project.
 *
 * Loading can fail (the database unreachable): the failure goes to whoever asked for the feed
 * (a stream opening answers 503), is logged once, and the project is forgotten so the next
 * stream loads it again. Steps that merely wait for a feed (`withFeed`: a poll, a wake-up, a
 * commit) never see that failure, so nothing is left to end the process as an unhandled
 * rejection (issue 27).
 */

/** Where the registry reports failures. */
export interface FeedLog {
  warn(object: object, message: string): void;
}

/** Feeds by project id, loaded on first use. */
export class FeedRegistry<Feed> {
  private readonly feeds = new Map<string, Promise<Feed>>();

  constructor(
    private readonly load: (projectId: string) => Promise<Feed>,
    private readonly log: FeedLog,
  ) {}

  /** The project's feed, loading it if needed. Rejects when the load fails. */
  get(projectId: string): Promise<Feed> {
    let pending = this.feeds.get(projectId);
    if (!pending) {
      const loading = this.load(projectId);
      pending = loading;
      this.feeds.set(projectId, loading);
      loading.catch((error: unknown) => {
        if (this.feeds.get(projectId) === loading) this.feeds.delete(projectId);
        this.log.warn({ err: error, project: projectId }, 'realtime: loading the project feed failed');
      });
    }
    return pending;
  }

  /** Projects with a feed loaded or loading. */
  projects(): string[] {
    return [...this.feeds.keys()];
  }

  /**
   * Runs `use` once the project's feed is ready, if one is loaded or loading (never loads one).
   * A failed load is left to `get`; a failure of `use` itself is logged.
   */
  withFeed(projectId: string, use: (feed: Feed) => void): void {
    const pending = this.feeds.get(projectId);
    if (!pending) return;
    pending
      .then(use, () => undefined)
      .catch((error: unknown) => {
        this.log.warn({ err: error, project: projectId }, 'realtime: a step of the project feed failed');
      });
  }

  /**
   * Runs `leave` on the project's feed (a stream went away); when it answers true (no stream is
   * left), forgets the feed, unless a newer one took its place meanwhile.
   */
  release(projectId: string, leave: (feed: Feed) => boolean): void {
    const pending = this.feeds.get(projectId);
    this.withFeed(projectId, (feed) => {
      if (leave(feed) && this.feeds.get(projectId) === pending) this.feeds.delete(projectId);
    });
  }
}
