// A workflow client whose queries answer only from a running workflow. Worker side.
import { WorkflowClient, type Client } from '@temporalio/client';

/**
 * `client`'s connection and settings, with queries rejected on a closed run: an entity that was terminated or
 * has ended (a breaker an operator removed, a cache entry past its TTL, a registry) must read as absent, not as
 * its last state, and a closed run needs no replay to say so.
 */
export function openRunQueries(client: Client): WorkflowClient {
  return new WorkflowClient({
    connection: client.connection,
    namespace: client.options.namespace,
    dataConverter: client.options.dataConverter,
    identity: client.options.identity,
    queryRejectCondition: 'NOT_OPEN',
  });
}
