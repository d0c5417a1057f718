import { apiRoutes } from '../api/routes';

/** Every PATCH route's body schema (the same list the OpenAPI document walks). */
const patchBodies = apiRoutes({} as never)
  .filter((r) => r.method === 'patch' && r.body)
  .map((r) => [r.path, r.body!] as const);

describe('PATCH bodies', () => {
  it('are found', () => {
    expect(patchBodies.length).toBeGreaterThanOrEqual(15);
  });

  // A create schema's default carried into its partial() would reset the field on every PATCH that
  // leaves it out (PATCH /v1/forms/:id {name} emptied the description until 2026-11-29).
  it.each(patchBodies)('PATCH %s fills in no default for a field it leaves out', (_, schema) => {
    const parsed = schema.safeParse({});
    expect(parsed.success ? parsed.data : {}).toEqual({});
  });
});
