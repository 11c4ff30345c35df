// A stand-in for a gateway's relay endpoint in relay tests: records pushes and answers with a chosen status.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import type { RelayBatch } from '../../src/config/relay';

export interface TestRelay {
  readonly url: string;
  readonly batches: RelayBatch[];
  readonly authorizations: (string | undefined)[];
  close(): Promise<void>;
}

/** Answers each push with `status()` after `delayMs` milliseconds. */
export async function startGatewayRelay(status: () => number, delayMs: number): Promise<TestRelay> {
  const batches: RelayBatch[] = [];
  const authorizations: (string | undefined)[] = [];
  const server = createServer((request, response) => {
    // Bytes first, text once whole: a character's UTF-8 bytes may be split across two chunks.
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      batches.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as RelayBatch);
      authorizations.push(request.headers.authorization);
      void delay(delayMs).then(() => response.writeHead(status()).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/switchyard/relay/test`,
    batches,
    authorizations,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
