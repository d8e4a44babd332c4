import { WalletError, parseWallet } from '@legwork/protocol';
import { AppError } from '../../common/errors/app-error';

/** A `wallet` parameter: canonical base58 of a 32-byte key that is not of small order. */
export function parseWalletParam(value: unknown): string {
  try {
    parseWallet(value);
    return value as string;
  } catch (error) {
    if (error instanceof WalletError) throw new AppError('INVALID_PARAMS', `wallet: ${error.message}`);
    throw error;
  }
}
