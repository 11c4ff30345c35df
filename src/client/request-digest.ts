// A short, content-free digest of a request for the UI's static summary. Node side (hashing).
import { createHash } from 'node:crypto';
import type { GenerationRequest } from '../config/request';

/** First 12 hex digits of the SHA-256 of the request: identifies identical prompts without showing them. */
export function requestDigest(request: GenerationRequest): string {
  return createHash('sha256').update(JSON.stringify(request)).digest('hex').slice(0, 12);
}

export function staticSummary(routeLabel: string, request: GenerationRequest): string {
  return `route ${routeLabel} · request ${requestDigest(request)} · ${request.messages.length} msg · max ${request.maxOutputTokens} out`;
}
