import {
  type CancelRequest, Configuration, type CreateOrder, EventsApi, type Order, OrdersApi, type PayRequest, RefundsApi,
  type ShipRequest, type Transition, WebhooksApi,
} from './generated/index.js';
import { type CursorStore, FeedReader } from './feed.js';
import { type Attempt, DEFAULT_RETRY_POLICY, type RetryPolicy, withRetries } from './retry.js';

export interface ClientOptions {
  /** The service, e.g. `https://orders.example.com`. */
  baseUrl: string;
  /** The bearer token, asked for on every request (so a refreshed one is picked up). */
  token?: () => string | Promise<string>;
  retry?: Partial<RetryPolicy>;
  /** The longest wait for one attempt's answer (10 s); then it counts as no answer, and is retried. */
  requestTimeoutMs?: number;
  /** Told of every failed attempt, before the wait (for logs and metrics). */
  onRetry?: (attempt: Attempt) => void;
  /** Another fetch (a test's, an instrumented one); the global one by default. */
  fetch?: typeof fetch;
}

/** An order as read (its `version` is its ETag), or only its id (no `If-Match`). */
export type OrderRef = Order | string;

/**
 * orderflow from TypeScript: the generated API (`orders`, `refunds`, `events`, `webhooks`) behind calls that retry
 * right. Each state-changing call draws one `Idempotency-Key` (or takes yours) and sends it with every attempt; a
 * refusal is a `ProblemError`; a transition given an order read before sends its version as `If-Match`
 * (`412 version-mismatch` when the order moved on: read it again and decide).
 */
export class OrderflowClient {
  readonly orders: OrdersApi;
  readonly refunds: RefundsApi;
  readonly events: EventsApi;
  readonly webhooks: WebhooksApi;
  readonly configuration: Configuration;
  private readonly policy: RetryPolicy;
  private readonly onRetry: (attempt: Attempt) => void;
  private readonly timeoutMs: number;

  constructor(options: ClientOptions) {
    this.configuration = new Configuration({
      basePath: options.baseUrl.replace(/\/+$/, ''),
      accessToken: options.token ? async () => options.token!() : undefined,
      fetchApi: options.fetch,
    });
    this.orders = new OrdersApi(this.configuration);
    this.refunds = new RefundsApi(this.configuration);
    this.events = new EventsApi(this.configuration);
    this.webhooks = new WebhooksApi(this.configuration);
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.onRetry = options.onRetry ?? (() => {});
    this.timeoutMs = options.requestTimeoutMs ?? 10_000;
  }

  /** Creates an order under `idempotencyKey` (a new one by default): the same key and body answer the same order. */
  createOrder(order: CreateOrder, idempotencyKey: string = newKey()): Promise<Order> {
    return this.keyed('createOrder', idempotencyKey,
        (key, init) => this.orders.createOrder({ idempotencyKey: key, createOrder: order }, init));
  }

  getOrder(id: string): Promise<Order> {
    return this.read('getOrder', (init) => this.orders.getOrder({ id }, init));
  }

  /** The order's history, oldest first. */
  transitions(id: string): Promise<Transition[]> {
    return this.read('getOrderTransitions', (init) => this.orders.getOrderTransitions({ id }, init));
  }

  pay(order: OrderRef, payment: PayRequest): Promise<Order> {
    return this.keyed('payOrder', newKey(), (key, init) => this.orders.payOrder(
        { id: idOf(order), idempotencyKey: key, payRequest: payment, ifMatch: ifMatch(order) }, init));
  }

  ship(order: OrderRef, shipment: ShipRequest): Promise<Order> {
    return this.keyed('shipOrder', newKey(), (key, init) => this.orders.shipOrder(
        { id: idOf(order), idempotencyKey: key, shipRequest: shipment, ifMatch: ifMatch(order) }, init));
  }

  deliver(order: OrderRef): Promise<Order> {
    return this.keyed('deliverOrder', newKey(), (key, init) => this.orders.deliverOrder(
        { id: idOf(order), idempotencyKey: key, ifMatch: ifMatch(order), body: {} }, init));
  }

  cancel(order: OrderRef, cancellation: CancelRequest = {}): Promise<Order> {
    return this.keyed('cancelOrder', newKey(), (key, init) => this.orders.cancelOrder(
        { id: idOf(order), idempotencyKey: key, ifMatch: ifMatch(order), cancelRequest: cancellation }, init));
  }

  /**
   * Any other state-changing operation of the generated API under one new key, with the same retries, e.g.
   * `client.call('issueRefund', (key, init) => client.refunds.issueRefund({ id, idempotencyKey: key, refundRequest }, init))`.
   */
  call<T>(operation: string, send: (key: string, init: RequestInit) => Promise<T>): Promise<T> {
    return this.keyed(operation, newKey(), send);
  }

  /** A reader of the event feed that keeps its place in `store`. */
  feed(store: CursorStore, pageSize = 100): FeedReader {
    return new FeedReader(this.configuration,
        (send) => this.read('listEvents', send), store, pageSize);
  }

  private keyed<T>(operation: string, key: string, send: (key: string, init: RequestInit) => Promise<T>): Promise<T> {
    return withRetries(this.policy, this.onRetry, operation, key, () => send(key, this.attemptInit()));
  }

  private read<T>(operation: string, send: (init: RequestInit) => Promise<T>): Promise<T> {
    return withRetries(this.policy, this.onRetry, operation, undefined, () => send(this.attemptInit()));
  }

  private attemptInit(): RequestInit {
    return { signal: AbortSignal.timeout(this.timeoutMs) };
  }
}

/** `If-Match` for an order as read: its ETag is its version. */
export function ifMatch(order: OrderRef): string | undefined {
  return typeof order === 'string' ? undefined : `"${order.version}"`;
}

function idOf(order: OrderRef): string {
  return typeof order === 'string' ? order : order.id;
}

function newKey(): string {
  return globalThis.crypto.randomUUID();
}
