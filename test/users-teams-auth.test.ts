import jwt from 'jsonwebtoken';
import request from 'supertest';
import { encodeId } from '../lib/ids';
import { startSecondApi } from './support/second-api';
import { newTenant, startStack, validLead, type TestStack, type TestTenant } from './support/stack';

let stack: TestStack;
let tenant: TestTenant;

beforeAll(async () => {
  stack = await startStack();
  tenant = await newTenant(stack.db);
});
afterAll(() => stack.stop());

const newUser = (overrides: Record<string, unknown> = {}, headers = tenant.live) =>
  stack
    .http()
    .post('/v1/users')
    .set(headers)
    .send({
      email: `u-${Math.random().toString(36).slice(2)}@example.com`,
      password: 'correct horse',
      firstName: 'Uma',
      lastName: 'User',
      ...overrides,
    });

describe('users and teams', () => {
  it('creates a user without ever returning the password', async () => {
    const res = await newUser({ roleId: 'member', phone: '+1 555 0100' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ firstName: 'Uma', roleId: 'member', status: 'active', teamIds: [] });
    expect(JSON.stringify(res.body)).not.toMatch(/password|correct horse|argon2/i);
  });

  it('validates users: password of at least 8 characters, email format, unknown team IDs', async () => {
    const res = await newUser({ password: 'short', email: 'nope', teamIds: [encodeId('team', 999999)] });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['email', 'password']);
    const unknownTeam = await newUser({ teamIds: [encodeId('team', 999999)] });
    expect(unknownTeam.status).toBe(422);
    expect(unknownTeam.body.errors).toEqual([{ field: 'teamIds.0', message: 'Team not found' }]);
  });

  it('refuses a second user with the same email in a tenant with 409', async () => {
    const email = `dup-${Date.now()}@example.com`;
    expect((await newUser({ email })).status).toBe(201);
    expect((await newUser({ email: email.toUpperCase() })).status).toBe(409);
  });

  it('creates teams with members and a member count, adds and removes members', async () => {
    const a = (await newUser()).body.data;
    const b = (await newUser()).body.data;
    const team = await stack
      .http()
      .post('/v1/teams')
      .set(tenant.live)
      .send({ name: 'EMEA', description: 'Sales', memberIds: [a.id] });
    expect(team.status).toBe(201);
    expect(team.body.data).toMatchObject({ name: 'EMEA', memberIds: [a.id], memberCount: 1 });
    const added = await stack
      .http()
      .post(`/v1/teams/${team.body.data.id}/members`)
      .set(tenant.live)
      .send({ userIds: [b.id] });
    expect(added.body.data.memberCount).toBe(2);
    expect((await stack.http().get(`/v1/users/${b.id}`).set(tenant.live)).body.data.teamIds).toEqual([team.body.data.id]);
    const removed = await stack.http().delete(`/v1/teams/${team.body.data.id}/members/${a.id}`).set(tenant.live);
    expect(removed.body.data).toMatchObject({ memberIds: [b.id], memberCount: 1 });
    const byTeam = await stack.http().get(`/v1/users?teamId=${team.body.data.id}`).set(tenant.live);
    expect(byTeam.body.data.map((u: { id: string }) => u.id)).toEqual([b.id]);
  });

  it("refuses another tenant's user as a team member", async () => {
    const other = await newTenant(stack.db);
    const outsider = encodeId('user', other.user.id);
    const res = await stack
      .http()
      .post('/v1/teams')
      .set(tenant.live)
      .send({ name: 'Mixed', memberIds: [outsider] });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ field: 'memberIds.0', message: 'User not found' }]);
  });

  it('hands no new lead, deal or task to a deactivated user; records already theirs can be sent back unchanged', async () => {
    const t = await newTenant(stack.db);
    const rep = (await newUser({}, t.live).expect(201)).body.data;
    const lead = (
      await stack
        .http()
        .post('/v1/leads')
        .set(t.live)
        .send(validLead({ assignedTo: rep.id }))
        .expect(201)
    ).body.data;
    const task = (await stack.http().post('/v1/tasks').set(t.live).send({ title: 'Call', assignedTo: rep.id }).expect(201)).body.data;
    const deal = (await stack.http().post('/v1/opportunities').set(t.live).send({ name: 'Deal', value: 1, ownerId: rep.id }).expect(201))
      .body.data;
    await stack.http().delete(`/v1/users/${rep.id}`).set(t.live).expect(200);

    const refused = [{ field: 'assignedTo', message: 'User is deactivated; assign an active user' }];
    const newLead = await stack
      .http()
      .post('/v1/leads')
      .set(t.live)
      .send(validLead({ assignedTo: rep.id }));
    expect([newLead.status, newLead.body.errors]).toEqual([422, refused]);
    const batch = await stack
      .http()
      .post('/v1/leads/batch')
      .set(t.live)
      .send({ leads: [validLead({ assignedTo: rep.id })] });
    expect(batch.body.data).toEqual([{ index: 0, status: 'error', errors: refused }]);
    const newTask = await stack.http().post('/v1/tasks').set(t.live).send({ title: 'Call again', assignedTo: rep.id });
    expect([newTask.status, newTask.body.errors]).toEqual([422, refused]);
    const newDeal = await stack.http().post('/v1/opportunities').set(t.live).send({ name: 'Deal 2', value: 1, ownerId: rep.id });
    expect([newDeal.status, newDeal.body.errors]).toEqual([422, [{ field: 'ownerId', message: refused[0].message }]]);
    const other = (await stack.http().post('/v1/leads').set(t.live).send(validLead()).expect(201)).body.data;
    const reassign = await stack.http().patch(`/v1/leads/${other.id}`).set(t.live).send({ assignedTo: rep.id });
    expect([reassign.status, reassign.body.errors]).toEqual([422, refused]);

    // Sending a record back as it was is no new assignment.
    await stack.http().patch(`/v1/leads/${lead.id}`).set(t.live).send({ assignedTo: rep.id, score: 5 }).expect(200);
    await stack.http().patch(`/v1/tasks/${task.id}`).set(t.live).send({ assignedTo: rep.id, title: 'Call soon' }).expect(200);
    await stack.http().patch(`/v1/opportunities/${deal.id}`).set(t.live).send({ ownerId: rep.id, value: 2 }).expect(200);
  });
});

describe('users cannot climb above the caller', () => {
  const keyWith = async (scopes: string[], headers = tenant.live) =>
    ({ 'X-API-Key': (await stack.http().post('/v1/api-keys').set(headers).send({ name: 'Limited', scopes })).body.data.fullKey }) as Record<
      string,
      string
    >;
  const login = (email: string, password: string) => stack.http().post('/v1/auth/login').send({ email, password, tenantId: tenant.id });

  it('refuses to create or promote a user to a role that grants more than the caller holds', async () => {
    const onlyUsers = await keyWith(['users:write']);
    for (const roleId of ['admin', 'manager', 'member', 'viewer']) {
      const res = await newUser({ roleId }, onlyUsers);
      expect([roleId, res.status, res.body.errors?.[0]?.field]).toEqual([roleId, 403, 'roleId']);
    }
    const readerAdmin = await keyWith(['*:read', 'users:write']);
    const viewer = await newUser({ roleId: 'viewer' }, readerAdmin);
    expect(viewer.status).toBe(201);
    const promote = await stack.http().patch(`/v1/users/${viewer.body.data.id}`).set(readerAdmin).send({ roleId: 'admin' });
    expect([promote.status, promote.body.message]).toEqual([403, 'Insufficient permissions']);
    expect((await stack.http().get(`/v1/users/${viewer.body.data.id}`).set(tenant.live)).body.data.roleId).toBe('viewer');
    const rename = await stack.http().patch(`/v1/users/${viewer.body.data.id}`).set(readerAdmin).send({ firstName: 'Vera' });
    expect(rename.status).toBe(200);
  });

  it("refuses to set the password of (or otherwise change) a user whose role grants more than the caller's scopes", async () => {
    const owner = encodeId('user', tenant.user.id);
    const usersOnly = await keyWith(['*:read', 'users:write']);
    const takeover = await stack.http().patch(`/v1/users/${owner}`).set(usersOnly).send({ password: 'attacker-chosen' });
    expect([takeover.status, takeover.body.errors]).toEqual([403, [{ field: 'id', message: expect.stringContaining('role admin') }]]);
    expect((await login(tenant.user.email, 'attacker-chosen')).status).toBe(401);
    expect((await login(tenant.user.email, tenant.password)).status).toBe(200);
    expect((await stack.http().delete(`/v1/users/${owner}`).set(usersOnly)).status).toBe(403);
    // A caller holding everything the role grants may: here the tenant's `*` key on a member.
    const member = (await newUser({ roleId: 'member' })).body.data;
    const reset = await stack.http().patch(`/v1/users/${member.id}`).set(tenant.live).send({ password: 'a new password' });
    expect(reset.status).toBe(200);
  });

  it('refuses user creation and password changes to sandbox callers (users are shared by both environments)', async () => {
    const created = await newUser({ roleId: 'viewer' }, tenant.sandbox);
    expect([created.status, created.body.errors?.[0]?.message]).toEqual([403, expect.stringContaining('live key')]);
    const user = (await newUser({ roleId: 'viewer' })).body.data;
    const password = await stack.http().patch(`/v1/users/${user.id}`).set(tenant.sandbox).send({ password: 'from the sandbox' });
    expect([password.status, password.body.errors?.[0]?.field]).toEqual([403, 'password']);
    expect((await stack.http().patch(`/v1/users/${user.id}`).set(tenant.sandbox).send({ firstName: 'Sam' })).status).toBe(200);
  });

  it("makes a deactivated user's API keys answer 401 at once, also in another API process that had them cached", async () => {
    const other = await startSecondApi(stack);
    try {
      const user = (await newUser({ roleId: 'admin' })).body.data;
      const minted = await stack.http().post('/v1/api-keys').set(tenant.live).set('X-On-Behalf-Of', user.id).send({ name: "Leaver's key" });
      const key = { 'X-API-Key': minted.body.data.fullKey as string };
      expect((await stack.http().get('/v1/leads').set(key)).status).toBe(200); // cached here
      expect((await request(other.app).get('/v1/leads').set(key)).status).toBe(200); // and there
      expect((await stack.http().delete(`/v1/users/${user.id}`).set(tenant.live)).status).toBe(200);
      expect((await stack.http().get('/v1/leads').set(key)).status).toBe(401);
      let status = 200;
      for (let i = 0; i < 100 && status === 200; i++) {
        status = (await request(other.app).get('/v1/leads').set(key)).status;
        if (status === 200) await new Promise((r) => setTimeout(r, 20));
      }
      expect(status).toBe(401);
    } finally {
      await other.stop();
    }
  });
});

describe('platform UI login (Bearer JWT + X-Tenant-Id)', () => {
  it('logs in and uses the token with the tenant header', async () => {
    const email = `login-${Date.now()}@example.com`;
    await newUser({ email, password: 'sup3r secret', roleId: 'admin' });
    const login = await stack.http().post('/v1/auth/login').send({ email, password: 'sup3r secret' });
    expect(login.status).toBe(200);
    expect(login.body.data).toMatchObject({ tokenType: 'Bearer', tenantId: tenant.id, expiresIn: expect.any(Number) });
    const auth = { Authorization: `Bearer ${login.body.data.accessToken}`, 'X-Tenant-Id': tenant.id };
    const created = await stack.http().post('/v1/leads').set(auth).send(validLead());
    expect(created.status).toBe(201);
    expect(created.body.data.assignedTo).toBe(login.body.data.user.id);
    const sandbox = await stack
      .http()
      .get(`/v1/leads/${created.body.data.id}`)
      .set({ ...auth, 'X-Environment': 'sandbox' });
    expect(sandbox.status).toBe(404);
  });

  it('rejects wrong passwords, a mismatched X-Tenant-Id, forged tokens and deactivated users', async () => {
    const email = `jwt-${Date.now()}@example.com`;
    const user = (await newUser({ email, password: 'sup3r secret' })).body.data;
    expect((await stack.http().post('/v1/auth/login').send({ email, password: 'wrong-password' })).status).toBe(401);
    const token = (await stack.http().post('/v1/auth/login').send({ email, password: 'sup3r secret' })).body.data.accessToken;
    const other = await newTenant(stack.db);
    expect(
      (
        await stack
          .http()
          .get('/v1/leads')
          .set({ Authorization: `Bearer ${token}`, 'X-Tenant-Id': other.id })
      ).status,
    ).toBe(401);
    expect(
      (
        await stack
          .http()
          .get('/v1/leads')
          .set({ Authorization: `Bearer ${token}` })
      ).status,
    ).toBe(401);
    const forged = jwt.sign({ tid: other.id }, 'not-our-secret-at-all', { subject: user.id, issuer: 'lead-engagement' });
    expect(
      (
        await stack
          .http()
          .get('/v1/leads')
          .set({ Authorization: `Bearer ${forged}`, 'X-Tenant-Id': other.id })
      ).status,
    ).toBe(401);
    const auth = { Authorization: `Bearer ${token}`, 'X-Tenant-Id': tenant.id };
    expect((await stack.http().get('/v1/leads').set(auth)).status).toBe(200);
    await stack.http().delete(`/v1/users/${user.id}`).set(tenant.live);
    expect((await stack.http().get('/v1/leads').set(auth)).status).toBe(401);
    expect((await stack.http().post('/v1/auth/login').send({ email, password: 'sup3r secret' })).status).toBe(401);
  });

  it("limits a member's token to the member role's scopes", async () => {
    const email = `member-${Date.now()}@example.com`;
    await newUser({ email, password: 'sup3r secret', roleId: 'viewer' });
    const token = (await stack.http().post('/v1/auth/login').send({ email, password: 'sup3r secret' })).body.data.accessToken;
    const auth = { Authorization: `Bearer ${token}`, 'X-Tenant-Id': tenant.id };
    expect((await stack.http().get('/v1/leads').set(auth)).status).toBe(200);
    expect((await stack.http().post('/v1/leads').set(auth).send(validLead())).status).toBe(403);
  });
});

describe('X-On-Behalf-Of and the audit log', () => {
  it('makes the named user the actor (creator and assignee) and keeps the key owner in the audit log', async () => {
    const rep = (await newUser()).body.data;
    const res = await stack.http().post('/v1/leads').set(tenant.live).set('X-On-Behalf-Of', rep.id).send(validLead());
    expect(res.status).toBe(201);
    expect(res.body.data.assignedTo).toBe(rep.id);
    const audit = await stack.http().get(`/v1/audit-logs?resourceId=${res.body.data.id}`).set(tenant.live);
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0]).toMatchObject({
      action: 'POST /v1/leads',
      resourceType: 'leads',
      resourceId: res.body.data.id,
      statusCode: 201,
      actorId: rep.id,
      keyOwnerId: encodeId('user', tenant.user.id),
      apiKeyId: expect.stringMatching(/^key/),
      requestId: res.headers['x-request-id'],
      environment: 'live',
    });
  });

  it('answers 403 for a user of another tenant, a deactivated user or garbage', async () => {
    const other = await newTenant(stack.db);
    const gone = (await newUser()).body.data;
    await stack.http().delete(`/v1/users/${gone.id}`).set(tenant.live);
    for (const target of [encodeId('user', other.user.id), gone.id, 'garbage', encodeId('lead', 1)]) {
      const res = await stack.http().post('/v1/leads').set(tenant.live).set('X-On-Behalf-Of', target).send(validLead());
      expect([target, res.status, res.body.message]).toEqual([target, 403, 'Target user not found or not in the same tenant']);
    }
  });

  it('filters the audit log and keeps environments apart', async () => {
    const before = new Date().toISOString();
    await stack.http().post('/v1/leads').set(tenant.sandbox).send(validLead());
    const sandboxLog = await stack
      .http()
      .get(`/v1/audit-logs?createdFrom=${encodeURIComponent(before)}&action=${encodeURIComponent('POST /v1/leads')}`)
      .set(tenant.sandbox);
    expect(sandboxLog.body.data).toHaveLength(1);
    expect(sandboxLog.body.data[0].environment).toBe('sandbox');
    const liveLog = await stack
      .http()
      .get(`/v1/audit-logs?createdFrom=${encodeURIComponent(before)}`)
      .set(tenant.live);
    expect(liveLog.body.data.every((e: { environment: string }) => e.environment === 'live')).toBe(true);
  });
});
