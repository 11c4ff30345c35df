// The gateway bench's table: the floors, then each surface side by side, as milliseconds and as ratios to the
// floors. Bench side (plain Node).
import type { GatewayBenchResults } from './gateway';
import { GATEWAY_SURFACES, SURFACE_LABELS } from './gateway-paths';
import type { Summary } from './stats';

const LABEL_WIDTH = 40;
const RATIO_HEADER = 'p50 ÷ direct, ÷ client API';

function row(label: string, summary: Summary, ratios = ''): string {
  return (
    `| ${label.padEnd(LABEL_WIDTH)} | ${String(summary.p50).padStart(7)} | ${String(summary.p99).padStart(7)} ` +
    `| ${ratios.padEnd(RATIO_HEADER.length)} |`
  );
}

const times = (value: number) => `${value} ×`;

export function renderGatewayTable(results: GatewayBenchResults): string {
  const { floors } = results;
  const lines = [
    `| ${'gateway path (ms)'.padEnd(LABEL_WIDTH)} | ${'p50'.padStart(7)} | ${'p99'.padStart(7)} ` +
      `| ${RATIO_HEADER} |`,
    `| ${'-'.repeat(LABEL_WIDTH)} | ${'-'.repeat(6)}: | ${'-'.repeat(6)}: | ${'-'.repeat(RATIO_HEADER.length)} |`,
    row('direct call (JSON), whole (the floor)', floors.directJson),
    row('direct streamed call, whole', floors.directStream),
    row('direct streamed call, first token', floors.directTimeToFirstToken),
    row('client API, whole', floors.clientApi),
    row('client API, streamed attempt, whole', floors.clientApiStream),
  ];
  for (const surface of GATEWAY_SURFACES) {
    const figures = results.surfaces[surface];
    const label = SURFACE_LABELS[surface];
    const { ratioP50 } = figures;
    lines.push(
      row(
        `${label} JSON, whole`,
        figures.json,
        `${times(ratioP50.jsonToDirect)}, ${times(ratioP50.jsonToClientApi)}`,
      ),
      row(
        `${label} stream, whole`,
        figures.stream,
        `${times(ratioP50.streamToDirectStream)}, ${times(ratioP50.streamToClientApiStream)}`,
      ),
      row(`${label} stream, first token`, figures.timeToFirstToken, times(ratioP50.ttftToDirectTtft)),
    );
  }
  lines.push('');
  for (const surface of GATEWAY_SURFACES) {
    const { addedP50Ms: added, concurrent } = results.surfaces[surface];
    lines.push(
      `${SURFACE_LABELS[surface]}: added p50 JSON ${added.jsonOverClientApi} ms over the client API, ` +
        `${added.jsonOverDirect} ms over a direct call; stream ${added.streamOverClientApiStream} ms over the ` +
        `client API's streamed attempt, ${added.streamOverDirectStream} ms over a direct stream; first token ` +
        `${added.ttftOverDirectTtft} ms over a direct stream's. ${concurrent.concurrency} concurrent streams: ` +
        `${concurrent.callsPerS} calls/s (${concurrent.calls} calls, ${concurrent.errors} errors in ` +
        `${concurrent.durationS} s), first token p50 ${concurrent.timeToFirstToken.p50} ms`,
    );
  }
  const { peer } = results;
  if (peer) {
    lines.push(
      '',
      `Peer proxy (LiteLLM, Chat Completions): JSON p50 ${peer.json.p50} ms, stream ${peer.stream.p50} ms, first ` +
        `token ${peer.timeToFirstToken.p50} ms; added p50 JSON ${peer.addedP50Ms.jsonOverDirect} ms, stream ` +
        `${peer.addedP50Ms.streamOverDirectStream} ms over a direct call. ${peer.concurrent.concurrency} ` +
        `concurrent streams: ${peer.concurrent.callsPerS} calls/s, first token p50 ` +
        `${peer.concurrent.timeToFirstToken.p50} ms`,
    );
    for (const surface of GATEWAY_SURFACES) {
      const ratios = peer.ratios[surface];
      lines.push(
        `${SURFACE_LABELS[surface]} ÷ the peer: added JSON ${times(ratios.addedJson)}, added stream ` +
          `${times(ratios.addedStream)}; calls/s at ${peer.concurrent.concurrency} concurrent ` +
          `${times(ratios.callsPerSAtConcurrency)}`,
      );
    }
  }
  return lines.join('\n');
}
