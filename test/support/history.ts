import { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.IHistory;
const { History } = temporal.api.history.v1;

/**
 * Plain-object (de)serialisation of histories. The SDK's historyToJSON/historyFromJSON break under
 * jest's module registry (two protobufjs instances), so recordings use protobufjs' own
 * toObject/fromObject with 64-bit numbers as strings and bytes as base64.
 */
export function historyToObject(history: History): Record<string, unknown> {
  return History.toObject(History.fromObject(history), { longs: String, enums: String, bytes: String });
}

export function historyFromObject(obj: Record<string, unknown>): temporal.api.history.v1.History {
  return History.fromObject(obj);
}
