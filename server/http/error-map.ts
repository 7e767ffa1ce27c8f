import { randomUUID } from 'node:crypto';
import { isDomainError, type ErrorCode, type FieldError } from '../errors';
import { log } from '../log';

/** The one table from domain errors to HTTP statuses. */
const STATUS_BY_CODE: Record<ErrorCode, number> = {
  validation_failed: 400,
  bad_request: 400,
  unauthenticated: 401,
  permission_denied: 403,
  not_found: 404,
  container_missing: 404,
  conflict: 409,
  payload_too_large: 413,
  limit_exceeded: 429,
  runtime_unavailable: 503,
};

export interface ErrorResponse {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

export function errorResponse(error: unknown, requestId: string = randomUUID()): ErrorResponse {
  if (!isDomainError(error)) {
    log.error('unhandled error', { request_id: requestId, error });
    return { status: 500, body: { message: 'Internal error', request_id: requestId }, headers: {} };
  }
  const body: Record<string, unknown> = { message: error.message };
  const details = error as unknown as { errors?: FieldError[]; retryAfterSeconds?: number };
  if (error.code === 'validation_failed') body.errors = details.errors;
  const headers: Record<string, string> = {};
  if (error.code === 'limit_exceeded') headers['Retry-After'] = String(details.retryAfterSeconds);
  return { status: STATUS_BY_CODE[error.code], body, headers };
}
