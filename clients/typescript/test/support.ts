// What the tests need around the client: the service the service's ClientsIT started, a proxy that cuts answers.
import { createHmac, randomUUID } from 'node:crypto';
import net from 'node:net';

export const service = {
  url: process.env['ORDERFLOW_URL'],
  customerToken: process.env['ORDERFLOW_CUSTOMER_TOKEN'] ?? '',
  operatorToken: process.env['ORDERFLOW_OPERATOR_TOKEN'] ?? '',
  mockpaySecret: process.env['ORDERFLOW_MOCKPAY_SECRET'] ?? '',
};

/** Without a service (ORDERFLOW_URL), the integration tests are skipped; the service's ClientsIT fails on a skip. */
export const noService = service.url === undefined ? 'no service to test against: ORDERFLOW_URL is not set' : false;

/** The built-in mockpay provider reporting a payment, with a signed callback. */
export async function paymentSucceeded(orderId: string, amount: number, currency: string): Promise<void> {
  const event = `evt_${randomUUID()}`;
  const body = JSON.stringify({ eventId: event, type: 'PAYMENT_SUCCEEDED', orderId, amount, currency,
    providerTxnId: `txn_${event}`, occurredAt: new Date().toISOString() });
  const t = Math.floor(Date.now() / 1000);
  const signature = createHmac('sha256', service.mockpaySecret).update(`${t}.${body}`).digest('hex');
  const answer = await fetch(`${service.url}/payments/mockpay/callbacks`, { method: 'POST', body,
    headers: { 'Content-Type': 'application/json', 'Payment-Signature': `t=${t},v1=${signature}` } });
  const text = await answer.text();
  if (answer.status !== 200 || !text.includes('"applied"')) {
    throw new Error(`mockpay's callback: ${answer.status} ${text}`);
  }
}

/**
 * A TCP proxy in front of the service: armed with cutNextAnswer(), it closes both sides when the answer starts to
 * come back (the service received the whole request and acted on it). It writes down every request's and answer's
 * head it carries.
 */
export class CuttingProxy {
  readonly requests: string[] = [];
  readonly answers: string[] = [];
  private cut = false;

  private constructor(private readonly server: net.Server) {
  }

  static async to(upstream: string): Promise<CuttingProxy> {
    const target = new URL(upstream);
    const server = net.createServer();
    const proxy = new CuttingProxy(server);
    server.on('connection', (client) => {
      const backend = net.connect(Number(target.port), target.hostname);
      const requests = heads(proxy.requests);
      const answers = heads(proxy.answers);
      client.on('data', (chunk: Buffer) => { requests(chunk); backend.write(chunk); });
      backend.on('data', (chunk: Buffer) => {
        if (proxy.cut) {
          proxy.cut = false;
          client.destroy();
          backend.destroy();
          return;
        }
        answers(chunk);
        client.write(chunk);
      });
      client.on('close', () => backend.destroy());
      backend.on('close', () => client.destroy());
      client.on('error', () => backend.destroy());
      backend.on('error', () => client.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
  }

  cutNextAnswer(): void {
    this.cut = true;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      (this.server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
    });
  }
}

/** The value of `name` in a recorded head. */
export function header(head: string, name: string): string | undefined {
  const line = head.split('\r\n').find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(line.indexOf(':') + 1).trim();
}

/** Splits an HTTP/1.1 byte stream into heads, skipping bodies by their Content-Length. */
function heads(into: string[]): (chunk: Buffer) => void {
  let pending = '';
  let bodyLeft = 0;
  return (chunk) => {
    pending += chunk.toString('latin1');
    while (true) {
      if (bodyLeft > 0) {
        const skip = Math.min(bodyLeft, pending.length);
        pending = pending.slice(skip);
        bodyLeft -= skip;
        if (bodyLeft > 0) {
          return;
        }
      }
      const end = pending.indexOf('\r\n\r\n');
      if (end < 0) {
        return;
      }
      const head = pending.slice(0, end);
      pending = pending.slice(end + 4);
      if (/^(HTTP\/1\.1 |[A-Z]+ \/)/.test(head)) {
        into.push(head);
      }
      bodyLeft = Number(header(head, 'Content-Length') ?? 0);
    }
  };
}
