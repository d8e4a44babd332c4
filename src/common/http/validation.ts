import { type ArgumentMetadata, ValidationPipe, type ValidationError } from '@nestjs/common';
import { AppError } from '../errors/app-error';
import { MAX_JSON_DEPTH, deeperThan } from '../json-depth';

function firstProblem(errors: ValidationError[], path = ''): string {
  for (const error of errors) {
    const field = path ? `${path}.${error.property}` : error.property;
    if (error.constraints) {
      const [message] = Object.values(error.constraints);
      return message.startsWith(error.property) ? message.replace(error.property, field) : `${field}: ${message}`;
    }
    if (error.children?.length) return firstProblem(error.children, field);
  }
  return 'invalid input';
}

/** Distinct valid query strings remembered per query DTO class (then forgotten all at once). */
const QUERIES_REMEMBERED = 1000;

/**
 * ValidationPipe that remembers the outcome for a query string it has accepted: class-validator
 * rebuilds a class's metadata on every call (about a tenth of a query API request's CPU), and a
 * client polling its positions sends the same query string again and again. Query DTOs hold
 * strings and are a pure function of the query string (no time- or state-dependent transforms),
 * so a remembered instance is the instance validation would make; each request gets its own copy.
 * Refusals and bodies are validated every time.
 */
class QueryRememberingValidationPipe extends ValidationPipe {
  private readonly accepted = new WeakMap<object, Map<string, object>>();

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // A custom parameter decorator's value (the principal) is not validated: no need to ask.
    if (metadata.type === 'custom') return value;
    // Before class-transformer and class-validator walk it (recursively): a 20,000-deep body is a 400, not a stack overflow.
    if (metadata.type === 'body' && deeperThan(value, MAX_JSON_DEPTH))
      throw new AppError('INVALID_PARAMS', `the body nests deeper than ${MAX_JSON_DEPTH} levels`);
    const dto = metadata.metatype;
    if (metadata.type !== 'query' || typeof dto !== 'function' || typeof value !== 'object' || value === null) return super.transform(value, metadata);
    let seen = this.accepted.get(dto);
    if (!seen) this.accepted.set(dto, (seen = new Map<string, object>()));
    const key = JSON.stringify(value);
    const known = seen.get(key);
    if (known) return Object.assign(Object.create(Object.getPrototypeOf(known) as object), known);
    const instance = (await super.transform(value, metadata)) as object;
    if (seen.size >= QUERIES_REMEMBERED) seen.clear();
    seen.set(key, Object.freeze(Object.assign(Object.create(Object.getPrototypeOf(instance) as object) as object, instance)));
    return instance;
  }
}

/**
 * Validates HTTP bodies and query strings against their DTO classes: unknown fields (and unknown
 * query parameters) are a 400, as is any field of the wrong shape; the message names the field.
 */
export function validationPipe(): ValidationPipe {
  return new QueryRememberingValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    forbidUnknownValues: true,
    exceptionFactory: (errors) => new AppError('INVALID_PARAMS', firstProblem(errors)),
  });
}
