import path from 'node:path';

/** The repository root, whether running from sources (ts) or from the compiled dist/ tree. */
const up = path.resolve(__dirname, '..');
export const PROJECT_ROOT = path.basename(up) === 'dist' ? path.resolve(up, '..') : up;
