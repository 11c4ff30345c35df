// The relay between a streamed attempt and its gateway, over real HTTP on 127.0.0.1: order, batching, the
// gateway's answers (superseded, gone, cancelled), an unreachable relay; and the hub's checks of token and batch.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { MAX_PUSH_BYTES } from '../../src/activities/relay-batches';
import { RelayPusher } from '../../src/activities/relay-client';
import {
  relayOriginAllowed,
  relayOriginsFromEnvironment,
  RelayOriginsError,
} from '../../src/activities/relay-origins';
import type { RelayPush } from '../../src/config/relay';
import { RelayHub } from '../../src/gateway/relay-hub';
import { startGatewayRelay } from '../support/relay-server';

const identity = { attemptId: '7', target: { provider: 'openai', model: 'gpt' } };
const token = 'a'.repeat(43);

test('pieces arrive in order, batched while a push is in flight', async () => {
  const relay = await startGatewayRelay(() => 200, 40);
  try {
    const pusher = new RelayPusher({ url: relay.url, token }, identity);
    for (let index = 0; index < 12; index += 1) pusher.push({ type: 'text', text: `${index} ` });
    await pusher.flush();
    const batches = relay.batches;
    expect(
      batches
        .flatMap((batch) => batch.deltas.map((delta) => (delta.type === 'text' ? delta.text : '')))
        .join(''),
    ).toBe('0 1 2 3 4 5 6 7 8 9 10 11 ');
    // The first piece went alone, at once; the rest gathered behind it.
    expect(batches[0]!.deltas).toHaveLength(1);
    expect(batches.length).toBeLessThan(12);
    expect(batches.map((batch) => batch.sequence)).toEqual(batches.map((_, index) => index));
    expect(relay.authorizations.every((value) => value === `Bearer ${token}`)).toBe(true);
    expect(pusher.callerHasOutput).toBe(true);
  } finally {
    await relay.close();
  }
});

test('superseded: the attempt hears of it, stops pushing, and the caller counts as having output', async () => {
  const relay = await startGatewayRelay(() => 409, 0);
  try {
    let superseded = 0;
    const pusher = new RelayPusher({ url: relay.url, token }, identity, {
      onSuperseded: () => (superseded += 1),
    });
    pusher.push({ type: 'text', text: 'a' });
    await pusher.flush();
    pusher.push({ type: 'text', text: 'b' });
    await pusher.flush();
    expect(superseded).toBe(1);
    expect(relay.batches).toHaveLength(1);
    expect(pusher.callerHasOutput).toBe(true);
  } finally {
    await relay.close();
  }
});

test('gone after a first accepted push: pushing stops, and the output that went out still counts', async () => {
  let answered = 0;
  const relay = await startGatewayRelay(() => (answered++ === 0 ? 200 : 410), 0);
  try {
    const stops: string[] = [];
    const pusher = new RelayPusher({ url: relay.url, token }, identity, {
      onStopped: (reason) => stops.push(reason),
    });
    pusher.push({ type: 'text', text: 'a' });
    await pusher.flush();
    pusher.push({ type: 'text', text: 'b' });
    await pusher.flush();
    pusher.push({ type: 'text', text: 'c' });
    await pusher.flush();
    expect(relay.batches).toHaveLength(2);
    expect(stops).toEqual(['the request is over']);
    expect(pusher.callerHasOutput).toBe(true);
  } finally {
    await relay.close();
  }
});

test('cancelled: the attempt hears the caller left and stops pushing', async () => {
  let answered = 0;
  const relay = await startGatewayRelay(() => (answered++ === 0 ? 200 : 499), 0);
  try {
    let cancelled = 0;
    const stops: string[] = [];
    const pusher = new RelayPusher({ url: relay.url, token }, identity, {
      onCancelled: () => (cancelled += 1),
      onStopped: (reason) => stops.push(reason),
    });
    for (const text of ['a', 'b', 'c']) {
      pusher.push({ type: 'text', text });
      await pusher.flush();
    }
    expect(cancelled).toBe(1);
    expect(stops).toEqual(['the caller left']);
    expect(relay.batches).toHaveLength(2);
  } finally {
    await relay.close();
  }
});

test('the hub answers cancelled to pushes after a caller left, and gone once it forgets; not to a wrong token', () => {
  const hub = new RelayHub();
  hub.listenAt('http://127.0.0.1:1');
  const left = hub.open();
  left.onPush = () => 200;
  const relayId = left.target.url.split('/').pop()!;
  const batch = { ...identity, sequence: 0, deltas: [{ type: 'text', text: 'x' }] };
  const bearer = `Bearer ${left.target.token}`;
  left.close('cancelled');
  expect(hub.receive(relayId, bearer, batch)).toBe(499);
  expect(hub.receive(relayId, `Bearer ${token}`, batch)).toBe(401);
  // The request's own end afterwards does not turn the answer back to gone early.
  left.close();
  expect(hub.receive(relayId, bearer, batch)).toBe(499);
  // A cancelled request is no stream in flight.
  expect(hub.size).toBe(0);
  // An idempotent request whose caller left outlives it: plain close, gone at once.
  const kept = hub.open();
  kept.close();
  expect(hub.receive(kept.target.url.split('/').pop()!, `Bearer ${kept.target.token}`, batch)).toBe(410);
});

test('a relay nobody listens on delivered nothing', async () => {
  const relay = await startGatewayRelay(() => 200, 0);
  const url = relay.url;
  await relay.close();
  const pusher = new RelayPusher({ url, token }, identity);
  pusher.push({ type: 'text', text: 'a' });
  await pusher.flush();
  expect(pusher.callerHasOutput).toBe(false);
});

test('the hub answers gone for an unknown id, 401 for a wrong token, 400 for a bad batch', async () => {
  const hub = new RelayHub();
  hub.listenAt('http://127.0.0.1:1/');
  const registration = hub.open();
  const received: RelayPush[] = [];
  registration.onPush = (batch) => {
    received.push(batch);
    return 200;
  };
  const relayId = registration.target.url.split('/').pop()!;
  expect(registration.target.url).toBe(`http://127.0.0.1:1/switchyard/relay/${relayId}`);
  const batch = { ...identity, sequence: 0, deltas: [{ type: 'text', text: 'x' }] };
  const bearer = `Bearer ${registration.target.token}`;
  expect(hub.receive('unknown', bearer, batch)).toBe(410);
  expect(hub.receive(relayId, `Bearer ${token}`, batch)).toBe(401);
  expect(hub.receive(relayId, undefined, batch)).toBe(401);
  expect(hub.receive(relayId, bearer, { ...batch, deltas: [] })).toBe(400);
  expect(hub.receive(relayId, bearer, batch)).toBe(200);
  expect(received).toHaveLength(1);
  registration.close();
  expect(hub.receive(relayId, bearer, batch)).toBe(410);
  expect(hub.size).toBe(0);
  await delay(0);
});

test('a relay that redirects is not followed: the token and the pieces never reach the other address', async () => {
  const elsewhere = await startGatewayRelay(() => 200, 0);
  const redirecting = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(307, { location: elsewhere.url }).end());
  });
  await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = redirecting.address() as AddressInfo;
    const stops: string[] = [];
    const pusher = new RelayPusher({ url: `http://127.0.0.1:${port}/switchyard/relay/x`, token }, identity, {
      onStopped: (reason) => stops.push(reason),
    });
    pusher.push({ type: 'text', text: 'secret answer' });
    await pusher.flush();
    expect(elsewhere.batches).toEqual([]);
    expect(elsewhere.authorizations).toEqual([]);
    expect(stops).toEqual(['relay answered a redirect, which is never followed']);
    expect(pusher.callerHasOutput).toBe(false);
  } finally {
    redirecting.closeAllConnections();
    await new Promise((resolve) => redirecting.close(resolve));
    await elsewhere.close();
  }
});

test('a relay outside the allowed origins gets no push at all; an allowed one gets them', async () => {
  const relay = await startGatewayRelay(() => 200, 0);
  try {
    const stops: string[] = [];
    const refused = new RelayPusher(
      { url: relay.url, token },
      identity,
      { onStopped: (reason) => stops.push(reason) },
      { allowedOrigins: ['https://gateway.internal:4000'] },
    );
    refused.push({ type: 'text', text: 'a' });
    await refused.flush();
    expect(relay.batches).toEqual([]);
    expect(refused.callerHasOutput).toBe(false);
    expect(stops).toEqual([`relay origin ${new URL(relay.url).origin} is not in SWITCHYARD_RELAY_ORIGINS`]);

    const allowed = new RelayPusher(
      { url: relay.url, token },
      identity,
      {},
      {
        allowedOrigins: [new URL(relay.url).origin],
      },
    );
    allowed.push({ type: 'text', text: 'b' });
    await allowed.flush();
    expect(relay.batches).toHaveLength(1);
  } finally {
    await relay.close();
  }
});

test('SWITCHYARD_RELAY_ORIGINS: unset allows any relay; entries must be bare origins', () => {
  expect(relayOriginsFromEnvironment({})).toBeUndefined();
  expect(relayOriginAllowed('http://anywhere:1/switchyard/relay/x', undefined)).toBe(true);
  const origins = relayOriginsFromEnvironment({
    SWITCHYARD_RELAY_ORIGINS: ' http://10.0.0.5:4000, https://gw.example.com ',
  });
  expect(origins).toEqual(['http://10.0.0.5:4000', 'https://gw.example.com']);
  expect(relayOriginAllowed('http://10.0.0.5:4000/switchyard/relay/abc', origins)).toBe(true);
  expect(relayOriginAllowed('https://gw.example.com:443/switchyard/relay/abc', origins)).toBe(true);
  expect(relayOriginAllowed('http://10.0.0.5:4001/switchyard/relay/abc', origins)).toBe(false);
  expect(relayOriginAllowed('http://gw.example.com/switchyard/relay/abc', origins)).toBe(false);
  for (const bad of ['gw.example.com', 'http://gw.example.com/relay', 'ftp://gw.example.com'])
    expect(() => relayOriginsFromEnvironment({ SWITCHYARD_RELAY_ORIGINS: bad })).toThrow(
      new RelayOriginsError(
        `SWITCHYARD_RELAY_ORIGINS entry "${bad}" is not an origin: write http(s)://host[:port], e.g. http://gateway.internal:4000, comma-separated`,
      ),
    );
});

test('a large gathering of pieces goes in pushes the relay takes, and joins back exactly', async () => {
  const relay = await startGatewayRelay(() => 200, 40);
  try {
    const pusher = new RelayPusher({ url: relay.url, token }, identity);
    // A tool input of 2 MiB, with a character outside the BMP at every cut a naive split might make.
    const big = '😀'.repeat(300_000) + 'x'.repeat(700_000);
    pusher.push({ type: 'text', text: 'first ' });
    pusher.push({ type: 'tool_call', index: 0, id: 'call_1', name: 'write_file', arguments: big });
    pusher.push({ type: 'reasoning', index: 0, text: 'y'.repeat(200_000), signature: 'sig' });
    await pusher.flush();
    const bodies = relay.batches.map((batch) => Buffer.byteLength(JSON.stringify(batch)));
    expect(Math.max(...bodies)).toBeLessThan(MAX_PUSH_BYTES + 1024);
    const deltas = relay.batches.flatMap((batch) => batch.deltas);
    const tool = deltas.filter((delta) => delta.type === 'tool_call');
    expect(tool[0]).toMatchObject({ id: 'call_1', name: 'write_file' });
    expect(tool.slice(1).every((delta) => !('id' in delta) && !('name' in delta))).toBe(true);
    // Compared as a boolean: a mismatch of 2 MiB would drown the report.
    expect(tool.map((delta) => (delta.type === 'tool_call' ? delta.arguments : '')).join('') === big).toBe(
      true,
    );
    const reasoning = deltas.filter((delta) => delta.type === 'reasoning');
    expect(reasoning.map((delta) => (delta.type === 'reasoning' ? delta.text : '')).join('')).toBe(
      'y'.repeat(200_000),
    );
    expect(reasoning.filter((delta) => delta.type === 'reasoning' && delta.signature === 'sig')).toEqual([
      reasoning[reasoning.length - 1],
    ]);
    expect(relay.batches.map((batch) => batch.sequence)).toEqual(relay.batches.map((_, index) => index));
  } finally {
    await relay.close();
  }
});
