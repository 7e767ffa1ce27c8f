import type { z } from 'zod';

/** One row of the OpenAPI document; the same schemas validate the requests. */
export interface EndpointSpec {
  method: 'get' | 'post' | 'put' | 'delete';
  /** Path under /v1, with `{param}` placeholders. */
  path: string;
  summary: string;
  tag: string;
  query?: z.ZodType;
  body?: z.ZodType;
  /** Set for routes that take a raw or multipart body instead of JSON. */
  bodyContentType?: string;
  status: number;
  response?: z.ZodType;
  /** Set for routes that answer with raw bytes or multipart instead of JSON. */
  responseContentType?: string;
}
