import { z } from 'zod';
import { messageSchema, validationErrorSchema } from './common';
import type { EndpointSpec } from './endpoint';
import { lifecycleEndpoints } from './lifecycle-endpoints';
import { sshEndpoints } from './ssh';
import { accountEndpoints } from './account';
import { gitEndpoints } from './git';
import { ptyEndpoints } from './pty';
import { filesystemEndpoints } from './filesystem';

/** Every endpoint group; later features append theirs here. */
export const endpointGroups: EndpointSpec[][] = [
  lifecycleEndpoints,
  accountEndpoints,
  sshEndpoints,
  gitEndpoints,
  ptyEndpoints,
  filesystemEndpoints,
];

function schema(value: z.ZodType, io: 'input' | 'output'): unknown {
  return z.toJSONSchema(value, { io, unrepresentable: 'any', target: 'draft-2020-12' });
}

function errorResponses(): Record<string, unknown> {
  const message = { content: { 'application/json': { schema: schema(messageSchema, 'output') } } };
  return {
    '400': {
      description: 'Invalid request',
      content: { 'application/json': { schema: schema(validationErrorSchema, 'output') } },
    },
    '401': { description: 'Invalid or missing API key', ...message },
    '404': { description: 'Not found', ...message },
    '409': { description: 'State conflict', ...message },
    '429': { description: 'Limit reached', ...message },
    '503': { description: 'Docker engine unreachable', ...message },
  };
}

export function openApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const endpoint of endpointGroups.flat()) {
    const parameters = [...endpoint.path.matchAll(/\{(\w+)\}/g)].map((match) => ({
      name: match[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    if (endpoint.query) {
      const query = schema(endpoint.query, 'input') as { properties?: Record<string, unknown>; required?: string[] };
      for (const [name, property] of Object.entries(query.properties ?? {})) {
        parameters.push({
          name,
          in: 'query',
          required: query.required?.includes(name) ?? false,
          schema: property as never,
        });
      }
    }
    const operation: Record<string, unknown> = {
      summary: endpoint.summary,
      tags: [endpoint.tag],
      parameters,
      responses: {
        [String(endpoint.status)]: {
          description: 'Success',
          ...(endpoint.response
            ? { content: { 'application/json': { schema: schema(endpoint.response, 'output') } } }
            : endpoint.responseContentType
              ? { content: { [endpoint.responseContentType]: {} } }
              : {}),
        },
        ...errorResponses(),
      },
      security: [{ bearer: [] }, { shoalHeader: [] }],
    };
    if (endpoint.body) {
      operation.requestBody = {
        required: false,
        content: { 'application/json': { schema: schema(endpoint.body, 'input') } },
      };
    } else if (endpoint.bodyContentType) {
      operation.requestBody = { required: true, content: { [endpoint.bodyContentType]: {} } };
    }
    const path = `/v1${endpoint.path}`;
    paths[path] = { ...paths[path], [endpoint.method]: operation };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Shoal API',
      version: '1.0.0',
      description: 'Sandboxes, terminals, git and files. Routes are served under /v1 and /api/v1.',
    },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer' },
        shoalHeader: { type: 'apiKey', in: 'header', name: 'shoal-authorization' },
      },
    },
    paths,
  };
}
