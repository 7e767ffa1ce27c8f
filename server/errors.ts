/**
 * Domain errors. Services throw these; `server/http/error-map.ts` is the one place that turns
 * them into HTTP statuses. Nothing below the HTTP layer knows about status codes.
 *
 * Errors are recognised by their `code`, never with instanceof: Next's route bundles and the
 * custom server load separate copies of this module, and an error thrown by a singleton built
 * in one copy reaches handlers compiled into the other.
 */
export type ErrorCode =
  | 'validation_failed'
  | 'bad_request'
  | 'unauthenticated'
  | 'permission_denied'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'limit_exceeded'
  | 'runtime_unavailable'
  | 'container_missing';

export abstract class DomainError extends Error {
  abstract readonly code: ErrorCode;
  override name = this.constructor.name;
}

const ERROR_CODES: ReadonlySet<string> = new Set<ErrorCode>([
  'validation_failed',
  'bad_request',
  'unauthenticated',
  'permission_denied',
  'not_found',
  'conflict',
  'payload_too_large',
  'limit_exceeded',
  'runtime_unavailable',
  'container_missing',
]);

/** Node's own errors carry string codes too (ECONNREFUSED…); only ours are in the set. */
export function isDomainError(error: unknown): error is DomainError {
  return error instanceof Error && ERROR_CODES.has(String((error as { code?: unknown }).code));
}

export function hasCode(error: unknown, code: ErrorCode): boolean {
  return isDomainError(error) && error.code === code;
}

export interface FieldError {
  field: string;
  error: string;
}

export class ValidationFailed extends DomainError {
  readonly code = 'validation_failed';
  constructor(readonly errors: FieldError[]) {
    super('Invalid request');
  }
}

/** A request that is well-formed but cannot be honoured as asked (a directory where a file was expected…). */
export class BadRequest extends DomainError {
  readonly code = 'bad_request';
}

export class Unauthenticated extends DomainError {
  readonly code = 'unauthenticated';
  constructor(message = 'Invalid or missing API key') {
    super(message);
  }
}

export class PermissionDenied extends DomainError {
  readonly code = 'permission_denied';
}

export class NotFound extends DomainError {
  readonly code = 'not_found';
  constructor(kind: string, id: string) {
    super(`${kind} '${id}' not found`);
  }
}

export class Conflict extends DomainError {
  readonly code = 'conflict';
}

export class PayloadTooLarge extends DomainError {
  readonly code = 'payload_too_large';
}

export class LimitExceeded extends DomainError {
  readonly code = 'limit_exceeded';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

export class RuntimeUnavailable extends DomainError {
  readonly code = 'runtime_unavailable';
  constructor(message = 'The Docker engine is unreachable; start it (make setup) and retry') {
    super(message);
  }
}

/** The container behind a sandbox is gone (removed outside Shoal). */
export class ContainerMissing extends DomainError {
  readonly code = 'container_missing';
  constructor(containerId: string) {
    super(`Container '${containerId.slice(0, 12)}' no longer exists`);
  }
}
