/** The Temporal connection's call-context storage runs only while a call that needs it does. */
import { Connection, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { withCallContext } from '../lib/temporal/call-context';
import { connectTemporalClient } from '../lib/temporal/client';

let client: Client;
let connection: Connection;
// Node 20's own flag: whether the storage's hook runs for every promise the process creates.
const storageOn = () => (connection.callContextStorage as unknown as { enabled: boolean }).enabled;

beforeAll(async () => {
  client = await connectTemporalClient(process.env.TEST_TEMPORAL_ADDRESS as string, 'default');
  connection = client.connection as Connection;
});
afterAll(() => connection.close());

describe('the Temporal call context', () => {
  it('is off once the client has connected (the connection check ran in it)', () => {
    expect(storageOn()).toBe(false);
  });

  /** While a call with a deadline waits (on a gate), `other` runs; then the gate opens. */
  async function besideASlowCall(other: () => Promise<unknown>) {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const deadline = Date.now() + 60_000;
    const slow = withCallContext(client, () =>
      client.withDeadline(deadline, async () => {
        await gate;
        return connection.callContextStorage.getStore();
      }),
    );
    await other();
    expect(storageOn()).toBe(true);
    release();
    expect(await slow).toMatchObject({ deadline });
    expect(storageOn()).toBe(false);
  }

  it('keeps a running call its deadline while another call ends, and is off once both have', () =>
    besideASlowCall(() =>
      withCallContext(client, () => client.withDeadline(Date.now() + 5_000, () => client.workflowService.getSystemInfo({}))),
    ));

  it('is off after a plain call (no deadline), which the client still makes inside its namespace metadata', async () => {
    await expect(client.workflow.getHandle('no-such-workflow').signal('nudge')).rejects.toThrow(WorkflowNotFoundError);
    expect(storageOn()).toBe(false);
  });

  it('keeps a running call its deadline while a plain call is made and ends', () =>
    besideASlowCall(() => expect(client.workflow.getHandle('no-such-workflow').describe()).rejects.toThrow(WorkflowNotFoundError)));

  it('is off after a call that failed', async () => {
    await expect(
      withCallContext(client, () =>
        client.withDeadline(Date.now() + 5_000, () => client.workflow.getHandle('no-such-workflow').describe()),
      ),
    ).rejects.toThrow();
    expect(storageOn()).toBe(false);
  });
});
