import { Client } from '@temporalio/client';
import { ContextReleasingConnection, releaseCallContext } from './call-context';
import { temporalConnectionOptions } from './connection-options';

/** A client with the cluster's TLS / API key settings (TEMPORAL_TLS_*, TEMPORAL_API_KEY). */
export async function connectTemporalClient(address: string, namespace: string): Promise<Client> {
  const connection = await ContextReleasingConnection.connect(temporalConnectionOptions(address));
  releaseCallContext(connection);
  return new Client({ connection, namespace });
}
