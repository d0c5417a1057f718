import { metricsRegistry } from '../../lib/metrics';

/** So far in this process: how many group commits a `<name>` histogram counted, and the items they wrote. */
export async function groupSizes(name: string): Promise<{ groups: number; items: number }> {
  const values = ((await metricsRegistry.getSingleMetric(name)?.get())?.values ?? []) as { metricName?: string; value: number }[];
  const read = (metric: string) => values.find((v) => v.metricName === metric)?.value ?? 0;
  return { groups: read(`${name}_count`), items: read(`${name}_sum`) };
}
