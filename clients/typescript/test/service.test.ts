import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import {
  type Attempt, isOrderEvent, memoryCursorStore, OrderflowClient, ProblemError, ProblemTypes,
  verifyWebhook, InvalidWebhookError,
} from '../src/index.js';
import { CuttingProxy, header, noService, paymentSucceeded, service } from './support.js';

// The client against the packaged service, through a proxy that cuts answers and shows the wire.
let proxy: CuttingProxy;
const attempts: Attempt[] = [];

before(async () => {
  if (!noService) {
    proxy = await CuttingProxy.to(service.url!);
  }
});

after(async () => {
  await proxy?.close();
});

function client(token: string, base = proxy.url): OrderflowClient {
  return new OrderflowClient({ baseUrl: base, token: () => token, retry: { deadlineMs: 20_000 },
    onRetry: (attempt) => attempts.push(attempt) });
}

const book = { currency: 'EUR', items: [{ sku: 'BOOK-1', quantity: 2, unitPrice: 1250 }] };

test('creates, pays and ships; the ship whose answer was cut is sent again with its key and applied once',
    { skip: noService }, async () => {
      const customer = client(service.customerToken);
      const operator = client(service.operatorToken);
      const order = await customer.createOrder(book);
      await customer.pay(order, { provider: 'mockpay' });
      await paymentSucceeded(order.id, 2500, 'EUR');
      const paid = await operator.getOrder(order.id);
      assert.equal(paid.status, 'PAID');
      attempts.length = 0;

      proxy.cutNextAnswer();
      const shipped = await operator.ship(paid, { carrier: 'DHL', trackingNumber: 'JD0001' });

      assert.equal(shipped.status, 'SHIPPED');
      const ships = proxy.requests.filter((r) => r.startsWith(`POST /orders/${order.id}/ship `));
      assert.equal(ships.length, 2, ships.join('\n---\n'));
      assert.ok(header(ships[0]!, 'Idempotency-Key'));
      assert.equal(header(ships[1]!, 'Idempotency-Key'), header(ships[0]!, 'Idempotency-Key'));
      assert.equal(header(ships[1]!, 'If-Match'), `"${paid.version}"`);
      assert.equal(header(proxy.answers.at(-1)!, 'Idempotent-Replayed'), 'true');
      assert.equal(attempts.length, 1);
      assert.equal(attempts[0]!.status, 0);
      const history = await operator.transitions(order.id);
      assert.deepEqual(history.map((t) => t.event), ['PAY', 'PAYMENT_SUCCEEDED', 'SHIP']);
    });

test('maps refusals to ProblemError with their members, and never retries them', { skip: noService }, async () => {
  const customer = client(service.customerToken);
  const order = await customer.createOrder(book);
  await customer.cancel(order, { reason: 'changed my mind' });
  const before = proxy.requests.length;
  attempts.length = 0;

  const stale = await customer.pay(order, { provider: 'mockpay' }).catch((e: unknown) => e);
  assert.ok(stale instanceof ProblemError, String(stale));
  assert.equal(stale.type, ProblemTypes.VERSION_MISMATCH);
  assert.equal(stale.status, 412);
  assert.equal(stale.members['currentVersion'], 1);
  assert.equal(stale.attempts, 1);
  const illegal = await customer.pay(order.id, { provider: 'mockpay' }).catch((e: unknown) => e);
  assert.ok(illegal instanceof ProblemError && illegal.is(ProblemTypes.ILLEGAL_TRANSITION), String(illegal));
  assert.equal(illegal.status, 409);
  assert.equal(illegal.members['currentStatus'], 'CANCELLED');
  assert.ok(illegal.title.length > 0 && illegal.detail !== undefined);

  assert.equal(proxy.requests.length - before, 2, 'one request each');
  assert.ok(attempts.every((a) => a.delayMs === undefined), JSON.stringify(attempts));
});

test('reads the feed once across a restart of the reader', { skip: noService }, async () => {
  const customer = client(service.customerToken);
  const ours = new Set<string>();
  for (let i = 0; i < 2; i++) {
    ours.add((await customer.createOrder(book)).id);
  }
  const operator = client(service.operatorToken, service.url);
  const everything: string[] = [];
  const watcher = memoryCursorStore();
  for (let round = 0; round < 80 && [...ours].some((id) => !everything.includes(id)); round++) {
    for await (const event of operator.feed(watcher, 500).untilCaughtUp()) {
      everything.push(isOrderEvent(event) && event.type === 'io.orderflow.order.created' ? event.subject : event.id);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));   // the sequencer places events every 250 ms
  }
  assert.ok([...ours].every((id) => everything.includes(id)), 'our orders reached the feed');

  const store = memoryCursorStore();
  const handled: string[] = [];
  let takenNotHandled = '';
  for await (const event of operator.feed(store, 2).untilCaughtUp()) {
    if (handled.length === 3) {
      takenNotHandled = event.id;   // dies before handling its fourth event
      break;
    }
    handled.push(event.id);
  }
  const rest: string[] = [];
  for await (const event of client(service.operatorToken, service.url).feed(store, 2).untilCaughtUp()) {
    rest.push(event.id);
  }

  assert.equal(rest[0], takenNotHandled, 'the restarted reader starts with the event not handled');
  const all = [...handled, ...rest];
  assert.equal(new Set(all).size, all.length, `an event handled twice: ${all.join(' ')}`);
  assert.equal(all.length, everything.length, 'every event of the feed');
});

test('verifies a real delivery and refuses a tampered one', { skip: noService }, async () => {
  const received: Array<{ body: string; headers: Record<string, string | string[] | undefined> }> = [];
  const receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => { body += chunk.toString('utf8'); });
    request.on('end', () => {
      received.push({ body, headers: request.headers });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const operator = client(service.operatorToken, service.url);
  const port = (receiver.address() as { port: number }).port;
  const endpoint = await operator.call('registerWebhookEndpoint', (key, init) => operator.webhooks
      .registerWebhookEndpoint({ idempotencyKey: key, webhookEndpointRequest: {
        url: `http://127.0.0.1:${port}/hooks`, types: new Set(['io.orderflow.order.created']) } }, init));
  try {
    const order = await client(service.customerToken, service.url).createOrder(book);
    for (let i = 0; i < 240 && !received.some((r) => r.body.includes(order.id)); i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const delivery = received.find((r) => r.body.includes(order.id));
    assert.ok(delivery, 'no delivery within 60 s');

    const event = await verifyWebhook(endpoint.secret, delivery.body, delivery.headers);

    assert.equal(event.subject, order.id);
    assert.equal(event.id, delivery.headers['webhook-id']);
    await assert.rejects(verifyWebhook(endpoint.secret, delivery.body.replace('BOOK-1', 'BOOK-2'), delivery.headers),
        InvalidWebhookError);
  } finally {
    await operator.webhooks.deleteWebhookEndpoint({ id: endpoint.id });
    receiver.close();
  }
});

test("runs the README's TypeScript example as written", { skip: noService }, async () => {
  const root = fileURLToPath(new URL('../../', import.meta.url));   // dist/ -> the package
  const readme = await readFile(new URL('../../../../README.md', import.meta.url), 'utf8');
  const example = /^```ts example\n([\s\S]*?)^```$/m.exec(readme);
  assert.ok(example, 'the README has a ```ts example block');
  await mkdir(`${root}readme-example`, { recursive: true });
  const source = `${root}readme-example/example.ts`;
  await writeFile(source, "import { OrderflowClient, ProblemError } from '../src/index.js';\n\n"
      + 'export async function run(base: string, token: string): Promise<void> {\n' + example[1] + '}\n');
  const program = ts.createProgram([source], { strict: true, target: ts.ScriptTarget.ES2022, module:
    ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, rootDir: root,
  outDir: `${root}dist`, skipLibCheck: true, types: ['node'], lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'] });
  const diagnostics = ts.getPreEmitDiagnostics(program).concat(program.emit().diagnostics);
  assert.deepEqual(diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')), []);

  const printed: unknown[][] = [];
  const log = console.log;
  console.log = (...args: unknown[]) => { printed.push(args); };
  try {
    const compiled = await import(pathToFileURL(`${root}dist/readme-example/example.js`).href) as
        { run: (base: string, token: string) => Promise<void> };
    await compiled.run(service.url!, service.customerToken);
  } finally {
    console.log = log;
  }
  assert.deepEqual(printed, [[412, ProblemTypes.VERSION_MISMATCH, 1]]);
});
