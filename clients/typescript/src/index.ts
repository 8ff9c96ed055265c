// The generated API and models (typescript-fetch, from openapi.yaml at build time), and the layer on top.
export * from './generated/index.js';
export { OrderflowClient, ifMatch, type ClientOptions, type OrderRef } from './client.js';
export {
  ProblemTypes, OrderflowError, ProblemError, FeedCursorExpiredError, UnreachableError,
} from './problem.js';
export { DEFAULT_RETRY_POLICY, type RetryPolicy, type Attempt } from './retry.js';
export {
  FeedReader, memoryCursorStore, isOrderEvent, isRefundEvent, type CursorStore, type FeedCheckpoint, type FeedEvent,
} from './feed.js';
export { verifyWebhook, InvalidWebhookError } from './webhooks.js';
