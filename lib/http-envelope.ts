import type { FieldError } from './errors';

const API_VERSION = 'v1';

export interface Pagination {
  page: number;
  limit: number;
  total: number;
  totalPages: number;
  hasNext: boolean;
  hasPrev: boolean;
}

function meta() {
  return { timestamp: new Date().toISOString(), version: API_VERSION };
}

export function successBody(status: number, message: string, data: unknown, pagination?: Pagination, extraMeta?: object) {
  const m = { ...meta(), ...extraMeta };
  return pagination ? { success: true, status, message, data, meta: m, pagination } : { success: true, status, message, data, meta: m };
}

/** Only success, data and message: what the spec's AI generation endpoints return. */
export function bareBody(message: string, data: unknown) {
  return { success: true, data, message };
}

export function errorBody(status: number, message: string, errors?: FieldError[], data?: unknown) {
  return {
    success: false,
    status,
    message,
    ...(errors && errors.length ? { errors } : {}),
    ...(data !== undefined ? { data } : {}),
    meta: meta(),
  };
}

export function paginate(page: number, limit: number, total: number): Pagination {
  const totalPages = Math.ceil(total / limit);
  return { page, limit, total, totalPages, hasNext: page < totalPages, hasPrev: page > 1 };
}
