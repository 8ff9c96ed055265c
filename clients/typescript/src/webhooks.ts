import { type FeedEvent, feedEvent } from './feed.js';

/** The delivery is not one of ours: answer it 4xx (or drop it) and handle nothing. */
export class InvalidWebhookError extends Error {
  override name = 'InvalidWebhookError';
}

const TOLERANCE_SECONDS = 5 * 60;

/**
 * Checks a delivery as Standard Webhooks specifies (HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<body>`,
 * keyed with the bytes after `whsec_`, any `v1,` signature matching, the timestamp within 5 minutes) and reads its
 * CloudEvent. WebCrypto only, so it runs in Node 20+, browsers, Deno, Bun and workers without a dependency. Give the
 * endpoint's secret; during a rotation, the new and the old one. Pass the body byte for byte as received.
 * Deliveries are at least once: deduplicate on the event's `id` (also `webhook-id`).
 */
export async function verifyWebhook(secrets: string | string[], body: string,
    headers: Headers | Record<string, string | string[] | undefined>, now: Date = new Date()): Promise<FeedEvent> {
  const header = (name: string): string => {
    const value = headers instanceof Headers ? headers.get(name)
        : Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
    const text = Array.isArray(value) ? value.join(' ') : value;
    if (!text) {
      throw new InvalidWebhookError(`missing ${name}`);
    }
    return text;
  };
  const id = header('webhook-id');
  const timestamp = header('webhook-timestamp');
  const signatures = header('webhook-signature').split(' ').filter((s) => s.startsWith('v1,')).map((s) => s.slice(3));
  if (!/^\d+$/.test(timestamp) || Math.abs(now.getTime() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) {
    throw new InvalidWebhookError('the timestamp is more than 5 minutes away from now');
  }
  const signed = new TextEncoder().encode(`${id}.${timestamp}.${body}`);
  for (const secret of Array.isArray(secrets) ? secrets : [secrets]) {
    const key = await crypto.subtle.importKey('raw', base64(secret.replace(/^whsec_/, '')),
        { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
    for (const signature of signatures) {
      // crypto.subtle.verify compares in constant time
      if (await crypto.subtle.verify('HMAC', key, base64(signature), signed)) {
        return feedEvent(JSON.parse(body) as { type: string });
      }
    }
  }
  throw new InvalidWebhookError('no signature matches');
}

function base64(text: string): Uint8Array<ArrayBuffer> {
  const bytes = atob(text);
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) {
    out[i] = bytes.charCodeAt(i);
  }
  return out;
}
