import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import type { AuditActor, AuditRow, ChainPoint } from '../domain/audit-chain';

const MAX_AUDIT_PAGE = 200;
const HASH = { type: 'string', pattern: '^[0-9a-f]{64}$' } as const;
/** A JSON value of the log: strings, integers, booleans, null, objects and arrays of them (never a float). */
const JSON_VALUE = {
  oneOf: [{ type: 'object' }, { type: 'array', items: {} }, { type: 'string' }, { type: 'integer' }, { type: 'boolean' }, { type: 'null' }],
};

/** GET /v1/admin/audit query. */
export class AdminAuditQuery {
  @ApiPropertyOptional({ description: 'Cursor: only rows older than this audit_seq (next_cursor of the previous page)', pattern: '^[1-9][0-9]{0,15}$' })
  @IsOptional()
  @IsString()
  @Matches(/^[1-9][0-9]{0,15}$/, { message: 'after must be an audit_seq (a positive integer)' })
  after?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_AUDIT_PAGE, default: 50 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_AUDIT_PAGE)
  limit?: number;

  @ApiPropertyOptional({ description: 'Only this command (deposit, roles, revert, ...)', pattern: '^[a-z0-9-]{1,64}$' })
  @IsOptional()
  @IsString()
  @Matches(/^[a-z0-9-]{1,64}$/, { message: 'action must be a command name (lowercase letters, digits, -)' })
  action?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'Only commands run by this account (through an admin session)' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  account_id?: number;
}

export class AuditActorDto implements AuditActor {
  @ApiProperty({
    enum: ['admin_token', 'session', 'exchange'],
    description: "The static ADMIN_TOKEN, a session (an admin's; a maker's for its own protection reset), or the exchange (a protection trip)",
  })
  via: 'admin_token' | 'session' | 'exchange';

  @ApiProperty({ type: 'integer', nullable: true })
  account_id: number | null;

  @ApiProperty({ type: 'string', nullable: true, description: 'Base58 wallet of the session' })
  wallet: string | null;

  @ApiProperty({ type: 'string', nullable: true, description: "The session token's jti" })
  jti: string | null;
}

class ChainPointDto implements ChainPoint {
  @ApiProperty({ type: 'integer', description: '0 while the log is empty' })
  audit_seq: number;

  @ApiProperty({ ...HASH, description: '64 zeros while the log is empty' })
  hash: string;
}

/** The head signed by the exchange key after each append (docs/spec/design.md section 20). */
export class SignedHeadDto extends ChainPointDto {
  @ApiProperty({ type: 'integer', nullable: true, description: 'Unix seconds of the append the head is at; null while the log is empty' })
  at: number | null;

  @ApiProperty({ type: 'string', nullable: true, description: 'The exchange key that signed (GET /v1/exchange/keys); null while the log is empty' })
  key_id: string | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description:
      'ed25519 signature (hex) of the UTF-8 of canonical JSON (RFC 8785) { kind: "legwork.audit_head", service, audit_seq, hash, at }; keep a copy to check the log later (cli verify-audit --head)',
  })
  signature: string | null;
}

export class AuditRowDto implements AuditRow {
  @ApiProperty({ type: 'integer', minimum: 1, description: 'Gapless, from 1' })
  audit_seq: number;

  @ApiProperty({ type: 'integer', description: 'Unix seconds' })
  at: number;

  @ApiProperty({ type: AuditActorDto })
  actor: AuditActorDto;

  @ApiProperty({ description: 'The client address as the rate limits see it (TRUST_PROXY)' })
  client_ip: string;

  @ApiProperty({ description: 'The command: the last path segment of its route, as its admin:<command> scope names it', example: 'deposit' })
  action: string;

  @ApiProperty({ ...JSON_VALUE, description: 'The path parameters of the route ({ account_id }, { rfq_id }), or null' })
  target: AuditRow['target'];

  @ApiProperty({
    ...JSON_VALUE,
    description: 'The request body as sent, with signatures and secrets replaced by "[redacted]" at any depth and strings over 1,024 characters cut',
  })
  params: AuditRow['params'];

  @ApiProperty({ type: 'integer', description: 'The HTTP status the command was answered with (a failed command is recorded too)' })
  status: number;

  @ApiProperty({ ...HASH, description: 'The hash of the row before (64 zeros for the first)' })
  prev_hash: string;

  @ApiProperty({
    ...HASH,
    description: 'SHA-256(prev_hash bytes || UTF-8 of this row without hash as RFC 8785 canonical JSON: keys sorted, no whitespace)',
  })
  hash: string;
}

/** GET /v1/admin/audit. */
export class AuditPageDto {
  @ApiProperty({ type: [AuditRowDto], description: 'Newest first' })
  rows: AuditRowDto[];

  @ApiPropertyOptional({ description: 'Pass as `after` for the next (older) page; absent on the last page' })
  next_cursor?: string;

  @ApiProperty({ type: SignedHeadDto, description: 'The newest row of the whole log (filters aside), signed by the exchange' })
  head: SignedHeadDto;
}
