import { AppError } from '../src/common/errors/app-error';

/** The message of the INVALID_PARAMS AppError that `fn` throws; fails the test otherwise. */
export function invalidParamsMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('INVALID_PARAMS');
    return (error as AppError).message;
  }
  throw new Error('expected INVALID_PARAMS');
}
