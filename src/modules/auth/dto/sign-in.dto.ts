import { ApiProperty } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import { ROLES, type Role } from '../../../common/access/access';
import type { NonceChallenge } from '../nonce.service';
import type { SignInResult } from '../sign-in.service';

const WALLET = {
  description: 'Solana wallet address: base58 of a 32-byte ed25519 public key (canonical, not of small order)',
  example: '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T',
};

export class NonceRequestDto {
  @ApiProperty(WALLET)
  @IsString()
  wallet: string;
}

export class SessionRequestDto {
  @ApiProperty(WALLET)
  @IsString()
  wallet: string;

  /** base58 of the 64-byte ed25519 signature over `message`. */
  @ApiProperty({ description: 'base58 of the 64-byte ed25519 signature over `message`' })
  @IsString()
  signature: string;

  /** The exact signed text returned with the nonce. */
  @ApiProperty({ description: 'The exact signed text returned with the nonce' })
  @IsString()
  message: string;
}

/** Response of POST /v1/auth/nonce (and public/get_nonce). */
export class NonceChallengeDto implements NonceChallenge {
  @ApiProperty(WALLET)
  wallet: string;

  @ApiProperty({ description: '32 lowercase hex characters; single use, valid 300 s', pattern: '^[0-9a-f]{32}$' })
  nonce: string;

  @ApiProperty({ description: 'Unix seconds', type: 'integer', format: 'int64' })
  expires_at: number;

  @ApiProperty({ description: 'The exact text to sign: "Sign in to <service>", an empty line, "Wallet: <wallet>", "Nonce: <nonce>" (newline separated)' })
  message: string;
}

/** Response of POST /v1/auth/session (and public/auth, public/session_resume). */
export class SignInResultDto implements SignInResult {
  @ApiProperty(WALLET)
  wallet: string;

  @ApiProperty({ type: 'integer', nullable: true, description: 'null for a wallet without an account: its token reads and trades nothing' })
  account_id: number | null;

  @ApiProperty({ enum: ROLES, isArray: true })
  roles: Role[];

  @ApiProperty({ description: 'Session token (HS256 JWT): the HTTP bearer credential and the key of public/session_resume' })
  session_token: string;
}
