import { Client, Connection } from '@temporalio/client';
import { releaseCallContext } from './call-context';
import { temporalConnectionOptions } from './connection-options';

/** A client with the cluster's TLS / API key settings (TEMPORAL_TLS_*, TEMPORAL_API_KEY). */
export async function connectTemporalClient(address: string, namespace: string): Promise<Client> {
  const connection = await Connection.connect(temporalConnectionOptions(address));
  releaseCallContext(connection);
  return new Client({ connection, namespace });
}
