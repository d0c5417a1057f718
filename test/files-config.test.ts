import { loadConfig } from '../lib/config';
import { createFileStorage } from '../lib/files/create-storage';

describe('file storage configuration', () => {
  it('defaults to the local driver and refuses FILES_DRIVER=s3 without a bucket at startup', () => {
    expect(createFileStorage(loadConfig({})).driver).toBe('local');
    expect(() => loadConfig({ FILES_DRIVER: 's3' })).toThrow('S3_BUCKET: required when FILES_DRIVER=s3');
    expect(() => loadConfig({ FILES_DRIVER: 's3', S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'k' })).toThrow(
      'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together',
    );
    const s3 = loadConfig({ FILES_DRIVER: 's3', S3_BUCKET: 'b', S3_ENDPOINT: 'http://127.0.0.1:9000', S3_FORCE_PATH_STYLE: 'true' });
    expect([s3.S3_REGION, s3.S3_FORCE_PATH_STYLE, s3.FILE_URL_TTL_SECONDS]).toEqual(['us-east-1', true, 600]);
    expect(createFileStorage(s3).driver).toBe('s3');
  });
});
