// The relay between a streamed attempt and its gateway, over real HTTP on 127.0.0.1: order, batching, the
// gateway's answers (superseded, gone), an unreachable relay; and the hub's checks of token and batch.
import { setTimeout as delay } from 'node:timers/promises';
import { RelayPusher } from '../../src/activities/relay-client';
import type { RelayBatch } from '../../src/config/relay';
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
  const received: RelayBatch[] = [];
  registration.onBatch = (batch) => {
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
