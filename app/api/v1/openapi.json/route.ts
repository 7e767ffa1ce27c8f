import { json } from '@/server/http/responses';
import { openApiDocument } from '@/server/spec/openapi';

/** Public: the document describes the API, it grants nothing. */
export function GET(): Response {
  return json(openApiDocument());
}
