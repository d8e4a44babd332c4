import { AppError } from '../../common/errors/app-error';
import { type Principal, allowsAdmin } from '../../common/access/access';
/** Role admin, scope `admin:*` or `admin:read`, or the admin token: may read any account. */
function isAdminReader(principal: Principal): boolean {
  return allowsAdmin(principal, 'read');
}

/**
 * The account a query reads (docs/spec/design.md section 3). `requested` is the `account_id` query text,
 * already checked to be canonical digits. Given, it must be the token's own account unless the
 * caller is an admin reader (otherwise FORBIDDEN); not given, it is the token's own account, and
 * an admin reader without one must name it (INVALID_PARAMS). A token without an account that is
 * no admin reader is FORBIDDEN.
 */
export function selectAccount(principal: Principal, requested: string | undefined): number {
  const admin = isAdminReader(principal);
  if (!admin && principal.accountId === null) throw new AppError('FORBIDDEN', 'this token has no account');
  if (requested === undefined) {
    if (principal.accountId === null) throw new AppError('INVALID_PARAMS', 'account_id is required');
    return principal.accountId;
  }
  const accountId = Number(requested);
  if (!/^(0|[1-9][0-9]*)$/.test(requested) || !Number.isSafeInteger(accountId)) {
    throw new AppError('INVALID_PARAMS', 'account_id must be an integer >= 0');
  }
  if (accountId !== principal.accountId && !admin) throw new AppError('FORBIDDEN', 'account_id is not the account of this token');
  return accountId;
}
