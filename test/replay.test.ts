import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { historyFromObject } from './support/history';

/**
 * Recorded histories of real runs (test/histories, written by the workflow tests when
 * RECORD_HISTORIES=1) replayed against the current workflow code: a change that would break
 * workflows already running in production fails here.
 */
const HISTORIES = path.join(__dirname, 'histories');
const files = readdirSync(HISTORIES).filter((f) => f.endsWith('.json'));

describe('workflow replay', () => {
  it('has recorded histories to replay', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files)('replays %s deterministically with the current workflow code', async (file) => {
    const history = historyFromObject(JSON.parse(readFileSync(path.join(HISTORIES, file), 'utf8')));
    await Worker.runReplayHistory({ workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE as string } }, history);
  });
});
