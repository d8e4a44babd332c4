import { IsString } from 'class-validator';

export class NonceRequestDto {
  @IsString()
  wallet: string;
}

export class SessionRequestDto {
  @IsString()
  wallet: string;

  /** base58 of the 64-byte ed25519 signature over `message`. */
  @IsString()
  signature: string;

  /** The exact signed text returned with the nonce. */
  @IsString()
  message: string;
}
