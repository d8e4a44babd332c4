import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { AppError } from '../errors/app-error';

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

/**
 * Validates HTTP bodies and query strings against their DTO classes: unknown fields (and unknown
 * query parameters) are a 400, as is any field of the wrong shape; the message names the field.
 */
export function validationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    forbidUnknownValues: true,
    exceptionFactory: (errors) => new AppError('INVALID_PARAMS', firstProblem(errors)),
  });
}
