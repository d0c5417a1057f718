/**
 * Typed domain errors. Code throws these; one error middleware maps `code` to an HTTP status
 * through ERROR_STATUS, never by message text.
 */
const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  rate_limited: 429,
  internal: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface FieldError {
  field: string;
  message: string;
}

/** A query parameter or form field given twice where one value is taken (a filter of several values reads them as its list). */
export const GIVEN_MORE_THAN_ONCE = 'Given more than once; give it once';

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
    /** Extra, safe-to-show data (for example the ID of an existing record on a conflict). */
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const notFound = (what = 'Resource') => new AppError('not_found', `${what} not found`);

export const validationFailed = (errors: FieldError[]) => new AppError('validation_failed', 'Validation failed', errors);
