/** TEMPORAL_TLS_* and TEMPORAL_API_KEY into the options the client and the worker connect with. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { loadConfig } from '../lib/config';
import { temporalConnectionOptions } from '../lib/temporal/connection-options';

const dir = mkdtempSync(path.join(os.tmpdir(), 'temporal-tls-'));
const pem = (name: string, label: string) => {
  const file = path.join(dir, name);
  writeFileSync(file, `-----BEGIN ${label}-----\n${name}\n-----END ${label}-----\n`);
  return file;
};
const ca = pem('ca.pem', 'CERTIFICATE');
const cert = pem('client.pem', 'CERTIFICATE');
const key = pem('client.key', 'PRIVATE KEY');
const options = (env: Record<string, string>) => temporalConnectionOptions('temporal.example:7233', loadConfig(env));

describe('Temporal connection options', () => {
  it('connects in plaintext when nothing is set (dev server, private network)', () => {
    expect(options({})).toEqual({ address: 'temporal.example:7233' });
  });

  it('Temporal Cloud with an API key: TLS with the system CAs, the key as bearer token', () => {
    expect(options({ TEMPORAL_API_KEY: 'cloud-api-key' })).toEqual({
      address: 'temporal.example:7233',
      tls: true,
      apiKey: 'cloud-api-key',
    });
    expect(options({ TEMPORAL_TLS: 'true' })).toEqual({ address: 'temporal.example:7233', tls: true });
  });

  it('mTLS (Temporal Cloud certificates or a self-hosted frontend): CA, client certificate and key, server name', () => {
    const o = options({
      TEMPORAL_TLS_CA_PATH: ca,
      TEMPORAL_TLS_CERT_PATH: cert,
      TEMPORAL_TLS_KEY_PATH: key,
      TEMPORAL_TLS_SERVER_NAME: 'frontend.internal',
    });
    expect(o.tls).toEqual({
      serverNameOverride: 'frontend.internal',
      serverRootCACertificate: expect.any(Buffer),
      clientCertPair: { crt: expect.any(Buffer), key: expect.any(Buffer) },
    });
    const tls = o.tls as { serverRootCACertificate: Buffer; clientCertPair: { crt: Buffer; key: Buffer } };
    expect(tls.serverRootCACertificate.toString()).toContain('ca.pem');
    expect(tls.clientCertPair.crt.toString()).toContain('client.pem');
    expect(tls.clientCertPair.key.toString()).toContain('client.key');
  });

  it('refuses settings that cannot work, saying what to fix', () => {
    expect(() => loadConfig({ TEMPORAL_TLS_CERT_PATH: cert })).toThrow(/TEMPORAL_TLS_CERT_PATH and TEMPORAL_TLS_KEY_PATH go together/);
    expect(() => loadConfig({ TEMPORAL_TLS_SERVER_NAME: 'x' })).toThrow(/only applies with TLS/);
    expect(() => options({ TEMPORAL_TLS_CA_PATH: path.join(dir, 'missing.pem') })).toThrow(
      /TEMPORAL_TLS_CA_PATH=.*missing\.pem cannot be read \(ENOENT\)/,
    );
    const notPem = path.join(dir, 'not.pem');
    writeFileSync(notPem, 'hello');
    expect(() => options({ TEMPORAL_TLS_CA_PATH: notPem })).toThrow(/not a PEM file/);
  });

  it('is what both the client and the worker connection use: TLS against a plaintext server fails, without it connects', async () => {
    const address = process.env.TEST_TEMPORAL_ADDRESS as string;
    const tls = temporalConnectionOptions(address, loadConfig({ TEMPORAL_TLS: 'true' }));
    await expect(Connection.connect({ ...tls, connectTimeout: 3000 }).then((c) => c.workflowService.getSystemInfo({}))).rejects.toThrow();
    await expect(NativeConnection.connect(tls)).rejects.toThrow();
    const plain = await Connection.connect(temporalConnectionOptions(address, loadConfig({})));
    await plain.workflowService.getSystemInfo({});
    await plain.close();
  });
});
