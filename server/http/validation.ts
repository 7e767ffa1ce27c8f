import type { z } from 'zod';
import { ValidationFailed, type FieldError } from '../errors';

/** `['network_policy', 'allow_domains', 0]` → `network_policy.allow_domains[0]` */
export function fieldPath(path: readonly PropertyKey[], root = 'body'): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out ? `.${String(segment)}` : String(segment);
  }
  return out || root;
}

/** Parses `input` or throws ValidationFailed listing every failing field. */
export function validate<S extends z.ZodType>(schema: S, input: unknown, root = 'body'): z.infer<S> {
  const result = schema.safeParse(input, {
    error: (issue) => (issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : undefined),
  });
  if (result.success) return result.data;
  const errors: FieldError[] = result.error.issues.map((issue) => ({
    field: fieldPath(issue.path, root),
    error: issue.message,
  }));
  throw new ValidationFailed(errors);
}
