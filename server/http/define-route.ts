import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { loadConfig } from '../config';
import { PermissionDenied } from '../errors';
import { singleton } from '../registry';
import { readBody, parseJson } from './body';
import { errorResponse } from './error-map';
import { authenticate, type Principal } from './principal';
import { RateLimiter } from './rate-limit';
import { json } from './responses';
import { validate } from './validation';

type AnySchema = z.ZodType;
type Infer<S> = S extends AnySchema ? z.infer<S> : undefined;

export interface RouteContext<P, Q, B> {
  request: Request;
  params: P;
  query: Q;
  body: B;
  principal: Principal;
  requestId: string;
}

export interface RouteOptions<P, Q, B> {
  params?: P;
  query?: Q;
  /** A zod schema for a JSON body. */
  body?: B;
  /** Content types a cookie-authenticated browser may send to this route besides JSON. */
  browserContentTypes?: string[];
}

type Handler<P, Q, B> = (context: RouteContext<Infer<P>, Infer<Q>, Infer<B>>) => Promise<Response> | Response;

type NextContext = { params: Promise<Record<string, string | string[]>> };

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function rateLimiter(): RateLimiter {
  return singleton('http.rate-limiter', () => new RateLimiter(loadConfig().rateLimitPerMinute));
}

/**
 * Browsers authenticated by cookie must prove the request comes from our own pages: a
 * same-origin Origin header and a content type a plain HTML form cannot send.
 */
function checkBrowserRequest(request: Request, extraTypes: string[]): void {
  if (!UNSAFE_METHODS.has(request.method)) return;
  const origin = request.headers.get('origin');
  const host = request.headers.get('x-forwarded-host') ?? request.headers.get('host');
  let originHost: string | null = null;
  try {
    originHost = origin ? new URL(origin).host : null;
  } catch {
    originHost = null;
  }
  if (!originHost || originHost !== host) throw new PermissionDenied('Cross-origin request refused');
  const type = (request.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  const allowed = ['application/json', ...extraTypes];
  if (request.method !== 'DELETE' && !allowed.includes(type)) {
    throw new PermissionDenied(`Browser requests must be sent as ${allowed.join(' or ')}`);
  }
}

/**
 * The one wrapper every API route handler goes through: request id, authentication, rate
 * limit, CSRF check for browsers, size-limited body, JSON parsing, zod validation, and the
 * mapping of domain errors to statuses. Handlers only call a service and shape the answer.
 */
export function defineRoute<
  P extends AnySchema | undefined = undefined,
  Q extends AnySchema | undefined = undefined,
  B extends AnySchema | undefined = undefined,
>(
  options: RouteOptions<P, Q, B>,
  handler: Handler<P, Q, B>,
): (request: Request, context: NextContext) => Promise<Response> {
  return async (request, context) => {
    const requestId = randomUUID();
    let response: Response;
    try {
      const principal = await authenticate((name) => request.headers.get(name));
      rateLimiter().check(principal.subject);
      if (principal.kind === 'session') checkBrowserRequest(request, options.browserContentTypes ?? []);
      const rawParams = await context.params;
      const params = options.params ? validate(options.params, rawParams, 'path') : undefined;
      const url = new URL(request.url);
      const query = options.query ? validate(options.query, Object.fromEntries(url.searchParams), 'query') : undefined;
      const body = options.body
        ? validate(options.body, parseJson(await readBody(request, loadConfig().maxBodyBytes)))
        : undefined;
      response = await handler({
        request,
        params: params as Infer<P>,
        query: query as Infer<Q>,
        body: body as Infer<B>,
        principal,
        requestId,
      });
    } catch (error) {
      const mapped = errorResponse(error, requestId);
      response = json(mapped.body, mapped.status, mapped.headers);
    }
    response.headers.set('x-request-id', requestId);
    return response;
  };
}
