import { readFileSync } from 'node:fs';
import type { TLSConfig } from '@temporalio/client';
import { config, type Config } from '../config';

/** What both the client's Connection and the worker's NativeConnection take. */
export interface TemporalConnectionOptions {
  address: string;
  tls?: TLSConfig | boolean;
  apiKey?: string;
}

type TemporalSecurity = Pick<
  Config,
  | 'TEMPORAL_TLS'
  | 'TEMPORAL_TLS_CA_PATH'
  | 'TEMPORAL_TLS_CERT_PATH'
  | 'TEMPORAL_TLS_KEY_PATH'
  | 'TEMPORAL_TLS_SERVER_NAME'
  | 'TEMPORAL_API_KEY'
>;

/**
 * Connection options for a Temporal cluster from TEMPORAL_TLS_* and TEMPORAL_API_KEY, the same for
 * the API's client and the worker. Nothing set: plaintext (the dev server, a private network).
 * An API key turns TLS on (Temporal Cloud accepts it only over TLS). Files are read here, at
 * startup, so a wrong path stops the process with a clear message instead of failing each call.
 */
export function temporalConnectionOptions(address: string, c: TemporalSecurity = config): TemporalConnectionOptions {
  const files = c.TEMPORAL_TLS_CA_PATH || c.TEMPORAL_TLS_CERT_PATH || c.TEMPORAL_TLS_SERVER_NAME;
  const tls: TLSConfig | boolean | undefined = files
    ? {
        ...(c.TEMPORAL_TLS_SERVER_NAME ? { serverNameOverride: c.TEMPORAL_TLS_SERVER_NAME } : {}),
        ...(c.TEMPORAL_TLS_CA_PATH ? { serverRootCACertificate: readPem('TEMPORAL_TLS_CA_PATH', c.TEMPORAL_TLS_CA_PATH) } : {}),
        ...(c.TEMPORAL_TLS_CERT_PATH && c.TEMPORAL_TLS_KEY_PATH
          ? {
              clientCertPair: {
                crt: readPem('TEMPORAL_TLS_CERT_PATH', c.TEMPORAL_TLS_CERT_PATH),
                key: readPem('TEMPORAL_TLS_KEY_PATH', c.TEMPORAL_TLS_KEY_PATH),
              },
            }
          : {}),
      }
    : c.TEMPORAL_TLS || c.TEMPORAL_API_KEY
      ? true
      : undefined;
  return { address, ...(tls ? { tls } : {}), ...(c.TEMPORAL_API_KEY ? { apiKey: c.TEMPORAL_API_KEY } : {}) };
}

function readPem(variable: string, file: string): Buffer {
  let content: Buffer;
  try {
    content = readFileSync(file);
  } catch (err) {
    throw new Error(`${variable}=${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)}): point it at a PEM file`, {
      cause: err,
    });
  }
  if (!content.toString('utf8').includes('-----BEGIN ')) throw new Error(`${variable}=${file} is not a PEM file (no -----BEGIN line)`);
  return content;
}
