import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { Ed25519Signer, encodeWallet, publicKeyFromSeed, signingDomain, keyIdOf } from '@legwork/protocol';
import { logger } from '../../common/logging/logger';
import { JournalRepository } from './journal.repository';

/** Where the embedded default keeps its generated key, inside DATA_DIR (never in a backup of it). */
export const EMBEDDED_KEY_FILE = 'exchange-signing-key';
const KEY_FILE = EMBEDDED_KEY_FILE;

/**
 * Reads the embedded key from DATA_DIR, or generates it there once (`wx`: two processes starting
 * on one directory cannot both write one). Kept beside the database it signs for.
 */
function embeddedSeed(dataDir: string): Buffer {
  const path = join(dataDir, KEY_FILE);
  mkdirSync(dataDir, { recursive: true });
  try {
    writeFileSync(path, randomBytes(32).toString('hex') + '\n', { flag: 'wx', mode: 0o600 });
    logger.event('info', 'exchange signing key generated', { path }, 'Journal');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const text = readFileSync(path, 'utf8').trim();
  if (!/^[0-9a-fA-F]{64}$/.test(text)) throw new Error(`${path} is not 64 hex characters: set EXCHANGE_SIGNING_KEY or remove the file`);
  return Buffer.from(text, 'hex');
}

/**
 * The exchange's receipt key (docs/spec/design.md 14): EXCHANGE_SIGNING_KEY, or the embedded default's.
 * Registered in `exchange_keys` at start, so a key that ever signed stays listed after rotation.
 */
@Injectable()
export class ExchangeKeyService implements OnModuleInit {
  readonly publicKey: Uint8Array;
  readonly keyId: string;
  readonly domain: Uint8Array;
  private readonly signer: Ed25519Signer;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly journal: JournalRepository,
    private readonly clock: Clock,
  ) {
    const seed = config.exchangeSigningKey ?? embeddedSeed(config.dataDir);
    this.signer = new Ed25519Signer(seed);
    this.publicKey = publicKeyFromSeed(seed);
    this.keyId = keyIdOf(this.publicKey);
    this.domain = signingDomain(config.serviceName);
  }

  async onModuleInit(): Promise<void> {
    await this.journal.registerKey(this.keyId, encodeWallet(this.publicKey), this.clock.now());
  }

  sign(payload: Uint8Array): Buffer {
    return Buffer.from(this.signer.sign(payload));
  }
}
