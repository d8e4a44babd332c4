import { Inject, Injectable } from '@nestjs/common';
import { auditHeadPayload } from '@legwork/protocol';
import { APP_CONFIG, type AppConfig } from '../../common/config/config';
import { ExchangeKeyService } from '../journal/exchange-key.service';
import { Database } from '../../common/database/database';
import { type AuditHead, type AuditPageQuery, AuditRepository } from './audit.repository';
import { type AuditRow, auditHash } from './domain/audit-chain';

/** What a command's record says, before the chain gives it its place. */
export type AuditEntry = Omit<AuditRow, 'audit_seq' | 'prev_hash' | 'hash'>;

/** The admin audit log (docs/spec/design.md section 16): append one row per admin command, read it back in pages. */
@Injectable()
export class AuditService {
  constructor(
    private readonly db: Database,
    private readonly audit: AuditRepository,
    private readonly keys: ExchangeKeyService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Appends the record of one admin command in a transaction of its own (the command's own has
   * committed or rolled back by now: a failed command is recorded too). The head is locked first,
   * so appends from every instance take their turn; the hold is one read, a hash and one write.
   */
  async record(entry: AuditEntry): Promise<AuditRow> {
    return this.db.tx(async (sql) => {
      const head = await this.audit.lockHead(sql);
      const unsigned = { ...entry, audit_seq: head.audit_seq + 1, prev_hash: head.hash };
      const row: AuditRow = { ...unsigned, hash: auditHash(unsigned) };
      // The head anchored: signed with the exchange key in the append's own transaction (docs/spec/design.md section 20).
      const signature = this.keys.sign(auditHeadPayload(this.config.serviceName, { audit_seq: row.audit_seq, hash: row.hash, at: row.at })).toString('hex');
      await this.audit.append(sql, row, { keyId: this.keys.keyId, signature });
      return row;
    });
  }

  /** A page newest first, the cursor of the next one (when there may be one), and the head. */
  async page(query: AuditPageQuery): Promise<{ rows: AuditRow[]; next_cursor?: string; head: AuditHead }> {
    const { rows, head } = await this.audit.page(query);
    const last = rows.at(-1);
    return rows.length === query.limit && last && last.audit_seq > 1 ? { rows, next_cursor: String(last.audit_seq), head } : { rows, head };
  }
}
