import { Message } from '../../db/entities';
import { type ScopedData } from '../../db/scoped-data';

const UNIQUE_VIOLATION = '23505';

/**
 * Inserts the message unless one with the same idempotency key exists, and returns the stored row
 * either way: a retried or replayed send finds the message it already created.
 */
export async function storeMessageOnce(
  data: ScopedData,
  values: Partial<Message> & Pick<Message, 'channel' | 'to' | 'body' | 'idempotencyKey'>,
): Promise<Message> {
  const repo = data.repo(Message);
  const existing = await repo.findOne({ idempotencyKey: values.idempotencyKey });
  if (existing) return existing;
  try {
    return await repo.insert({ status: 'queued', ...values });
  } catch (err) {
    if ((err as { driverError?: { code?: string } }).driverError?.code !== UNIQUE_VIOLATION) throw err;
    const raced = await repo.findOne({ idempotencyKey: values.idempotencyKey });
    if (!raced) throw err;
    return raced;
  }
}
