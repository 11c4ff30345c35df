// A whole answer an attempt handed to the gateway's relay ahead of the call's record: taking it, and reading it. Node side.
import { RelayReply, type RelayAnswer } from '../config/relay';
import type { RelayRegistration } from './relay-hub';
import type { Answer } from './surface';

/** The first whole answer an attempt pushes to `registration`; pieces have no place in a whole-answer response. */
export function handedAnswer(registration: RelayRegistration): Promise<RelayAnswer> {
  return new Promise((resolve) => {
    registration.onPush = (push) => {
      if (!('answer' in push)) return RelayReply.gone;
      registration.onPush = () => RelayReply.gone;
      resolve(push);
      return RelayReply.accepted;
    };
  });
}

/** A handed answer as the call's result holds it (the served target is the record's, not the answer's). */
export function answerOf(push: RelayAnswer): Answer {
  const { provider: _provider, model: _model, ...answer } = push.answer;
  return answer;
}
