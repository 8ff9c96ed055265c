import {
  type Configuration, FetchError, type OrderCloudEvent, OrderCloudEventFromJSON, type RefundCloudEvent,
  RefundCloudEventFromJSON, ResponseError,
} from './generated/index.js';

/**
 * Where a feed reader is: the cursor its current page was read from (undefined: the oldest retained event) and the
 * ids of that page's events already handled.
 */
export interface FeedCheckpoint {
  after?: string;
  handled: string[];
}

/** Keep it with what your handler writes (the same transaction, ideally): then each event is handled once. */
export interface CursorStore {
  load(): Promise<FeedCheckpoint | undefined>;
  save(checkpoint: FeedCheckpoint): Promise<void>;
}

export function memoryCursorStore(): CursorStore & { saved?: FeedCheckpoint } {
  const store: CursorStore & { saved?: FeedCheckpoint } = {
    load: async () => store.saved,
    save: async (checkpoint) => { store.saved = { after: checkpoint.after, handled: [...checkpoint.handled] }; },
  };
  return store;
}

/**
 * A CloudEvent of the feed as it came, typed by `type`. (The contract's `anyOf` gives the generated union no way to
 * tell an order's event from a refund's, both having the same envelope; the reader keeps the JSON.)
 */
export type FeedEvent = OrderCloudEvent | RefundCloudEvent;

export function isOrderEvent(event: FeedEvent): event is OrderCloudEvent {
  return event.type.startsWith('io.orderflow.order.');
}

export function isRefundEvent(event: FeedEvent): event is RefundCloudEvent {
  return event.type.startsWith('io.orderflow.refund.');
}

/** A CloudEvent's JSON as the generated model of its kind. */
export function feedEvent(json: { type: string }): FeedEvent {
  return json.type.startsWith('io.orderflow.refund.') ? RefundCloudEventFromJSON(json) : OrderCloudEventFromJSON(json);
}

type Read = <T>(send: (init: RequestInit) => Promise<T>) => Promise<T>;

/**
 * Follows `GET /events` from where its store left off. An event counts as handled once the loop asks for the next
 * one; the reader then saves its checkpoint, so a reader started again over the same store goes on after the last
 * handled event. Events are deduplicated by id over the last 10,000 seen.
 *
 *     for await (const event of reader.untilCaughtUp()) { await handle(event); }   // then poll again later
 *
 * A cursor past retention throws `FeedCursorExpiredError`: nothing is skipped in silence.
 */
export class FeedReader {
  private readonly recent = new Set<string>();

  constructor(private readonly configuration: Configuration, private readonly read: Read,
      private readonly store: CursorStore, private readonly pageSize: number) {
    if (pageSize < 1 || pageSize > 500) {
      throw new RangeError(`pageSize is 1 to 500: ${pageSize}`);
    }
  }

  async *untilCaughtUp(): AsyncGenerator<FeedEvent, void, undefined> {
    const start = (await this.store.load()) ?? { handled: [] };
    let after = start.after;
    let handled = new Set(start.handled);
    while (true) {
      const page = await this.read((init) => this.page(after, init));
      for (const event of page.events) {
        if (handled.has(event.id) || this.recent.has(event.id)) {
          continue;
        }
        yield event;
        handled.add(event.id);
        this.remember(event.id);
        await this.store.save({ after, handled: [...handled] });
      }
      const moved = page.next !== after;
      after = page.next;
      handled = new Set();
      await this.store.save({ after, handled: [] });
      if (page.events.length === 0 || !moved) {
        return;
      }
    }
  }

  /** Goes on from `cursor`, e.g. `FeedCursorExpiredError.oldestCursor` once what was purged was read per order. */
  async restartFrom(cursor: string): Promise<void> {
    await this.store.save({ after: cursor, handled: [] });
  }

  private remember(id: string): void {
    this.recent.add(id);
    if (this.recent.size > 10_000) {
      this.recent.delete(this.recent.values().next().value as string);
    }
  }

  private async page(after: string | undefined, init: RequestInit): Promise<{ events: FeedEvent[]; next: string }> {
    const query = new URLSearchParams({ limit: String(this.pageSize) });
    if (after !== undefined) {
      query.set('after', after);
    }
    const headers: Record<string, string> = { Accept: 'application/json, application/problem+json' };
    const token = this.configuration.accessToken;
    if (token) {
      headers['Authorization'] = `Bearer ${await token()}`;
    }
    let response: Response;
    try {
      response = await (this.configuration.fetchApi ?? fetch)(`${this.configuration.basePath}/events?${query}`,
          { ...init, headers });
    } catch (e) {
      throw new FetchError(e as Error, 'listEvents failed');
    }
    if (!response.ok) {
      throw new ResponseError(response, 'listEvents');
    }
    const page = await response.json() as { events: Array<{ type: string }>; next: string };
    return { events: page.events.map(feedEvent), next: page.next };
  }
}
