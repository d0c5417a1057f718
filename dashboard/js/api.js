/**
 * The one door to the server: the public /v1 API with the platform UI's auth (Bearer token,
 * X-Tenant-Id, X-Environment). The session lives in sessionStorage only: it ends with the tab, and
 * nothing secret ever goes into a URL.
 */
const SESSION_KEY = 'dashboard.session';
const ENV_KEY = 'dashboard.environment';

export class ApiError extends Error {
  constructor(status, message, errors = []) {
    super(message);
    this.status = status;
    this.errors = Array.isArray(errors) ? errors : [];
  }
}

export const session = {
  get() {
    try {
      const s = JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? 'null');
      if (!s || typeof s.token !== 'string' || Date.now() >= s.expiresAt) return null;
      return s;
    } catch {
      return null;
    }
  },
  set(s) {
    sessionStorage.setItem(SESSION_KEY, JSON.stringify(s));
  },
  clear() {
    sessionStorage.removeItem(SESSION_KEY);
  },
  environment() {
    return sessionStorage.getItem(ENV_KEY) === 'sandbox' ? 'sandbox' : 'live';
  },
  setEnvironment(env) {
    sessionStorage.setItem(ENV_KEY, env === 'sandbox' ? 'sandbox' : 'live');
  },
};

/**
 * Whether the signed-in user's role grants `scope`, by the server's rule (lib/auth/scopes.ts): a
 * write scope includes read. The dashboard leaves out what the role cannot do; the server still
 * decides (403 naming the scope). A session stored before scopes were kept shows everything.
 */
export function can(scope) {
  const granted = session.get()?.scopes;
  if (!Array.isArray(granted)) return true;
  if (granted.includes('*') || granted.includes(scope)) return true;
  const [resource, action] = scope.split(':');
  return action === 'read' && (granted.includes(`${resource}:write`) || granted.includes('*:read'));
}

let onUnauthorized = () => {};
/** Called when the server answers 401 to a signed-in request (expired token, deactivated user). */
export function setUnauthorizedHandler(fn) {
  onUnauthorized = fn;
}

/** Sends one request with the session's credentials; a failure to reach the server is an ApiError too. */
async function send(method, path, body, accept) {
  const s = session.get();
  const headers = { Accept: accept };
  if (s) {
    headers.Authorization = `Bearer ${s.token}`;
    headers['X-Tenant-Id'] = s.tenantId;
    headers['X-Environment'] = session.environment();
  }
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  try {
    return await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, 'Cannot reach the server. Check your connection and try again.');
  }
}

/** The ApiError of an answer that failed, from its envelope (a proxy's HTML error page is not JSON: then its status). */
function failure(res, payload) {
  const message = typeof payload?.message === 'string' ? payload.message : `The server answered ${res.status}`;
  const err = new ApiError(res.status, message, payload?.errors);
  if (res.status === 401 && session.get()) onUnauthorized(err);
  return err;
}

/** Sends one request; resolves to the envelope ({data, message, pagination}) or throws ApiError. */
export async function api(method, path, body) {
  const res = await send(method, path, body, 'application/json');
  const payload = await res.json().catch(() => null);
  if (!res.ok || payload?.success === false) throw failure(res, payload);
  return payload ?? {};
}

/**
 * Saves what a GET answers as a file (an export), under the name its Content-Disposition gives: the
 * request needs the session's headers, which a plain link could not send, so the file is fetched
 * and handed to the browser as a download. Throws ApiError as api() does.
 */
export async function download(path, fallbackName) {
  const res = await send('GET', path, undefined, '*/*');
  if (!res.ok) throw failure(res, await res.json().catch(() => null));
  const name = /filename="([^"]+)"/.exec(res.headers.get('Content-Disposition') ?? '')?.[1] ?? fallbackName;
  const url = URL.createObjectURL(await res.blob());
  const link = Object.assign(document.createElement('a'), { href: url, download: name });
  document.body.append(link);
  link.click();
  link.remove();
  // After the click has handed the file over; revoking at once can cancel it in some browsers.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return name;
}

/** `?a=1&b=x` from an object, leaving out empty values. */
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
