import { AppError } from '../../common/errors/app-error';

const POSITIVE_INTEGER = /^[1-9][0-9]{0,15}$/;

/** An account id in a path: a positive integer in canonical decimal text ("7", not "07", "7.0" or "0x7"). */
export function parseAccountId(value: unknown, name = 'account_id'): number {
  const id = typeof value === 'string' && POSITIVE_INTEGER.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(id)) throw new AppError('INVALID_PARAMS', `${name} must be a positive integer`);
  return id;
}
