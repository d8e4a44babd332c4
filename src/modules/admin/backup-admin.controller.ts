import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { Controller, HttpCode, Post, Res, StreamableFile, UseInterceptors } from '@nestjs/common';
import { ApiConflictResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Clock } from '../../common/clock';
import { Database } from '../../common/database/database';
import { AppError } from '../../common/errors/app-error';
import { ErrorResponse } from '../../common/http/error-response.dto';
import { logger } from '../../common/logging/logger';
import { AdminAccess } from '../../common/access/access';
import { AuditTrail } from '../audit/audit-trail.interceptor';
import { EMBEDDED_KEY_FILE } from '../journal/exchange-key.service';
import { JournalService } from '../journal/journal.service';

const gzipAsync = promisify(gzip);

/** `legwork-backup-20261126T091500Z.tar.gz`: the moment in the name, sortable. */
function fileName(nowMs: number): string {
  return `legwork-backup-${new Date(nowMs)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}.tar.gz`;
}

/**
 * The embedded database's backup (docs/spec/design.md section 17, docs/operations.md "Backups").
 * The embedded database accepts no connection from outside the process (section 16), so its
 * backup is taken by the running exchange and streamed to an admin (`npm run cli -- backup`).
 * A POST, not a GET: a backup copies every account's data, so it is an admin command recorded in
 * the audit log like any other. On PostgreSQL it is refused (409): `pg_dump` backs that up.
 */
@ApiTags('admin')
@UseInterceptors(AuditTrail)
@Controller('v1/admin')
export class BackupAdminController {
  /** One backup at a time: each holds a copy of the database in memory. */
  private running = false;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly journal: JournalService,
  ) {}

  @Post('backup')
  @HttpCode(200)
  @AdminAccess('backup')
  @ApiOperation({
    summary: 'The embedded database as one file (gzip of its data directory as a tar), consistent at one moment between transactions',
    description:
      'Database work pauses while the data directory is copied (the file is compressed after). X-Backup-Sha256 is the SHA-256 of the body, X-Backup-Paused-Ms how long database work waited. ' +
      'Restore with `npm run cli -- restore --in FILE --data-dir DIR` (docs/operations.md). The exchange signing key is not in the file.',
  })
  // No @ApiProduces: it would say every answer is gzip; the 200 names its own content, the errors are JSON.
  @ApiOkResponse({ description: 'The backup file', content: { 'application/gzip': { schema: { type: 'string', format: 'binary' } } } })
  @ApiConflictResponse({ description: 'The exchange runs on PostgreSQL (back it up with pg_dump), or a backup is running', type: ErrorResponse })
  async backup(@Res({ passthrough: true }) reply: FastifyReply): Promise<StreamableFile> {
    if (!this.database.embedded) throw new AppError('CONFLICT', 'this exchange runs on PostgreSQL: back it up with pg_dump (docs/operations.md, Backups)');
    if (this.running) throw new AppError('CONFLICT', 'a backup is running: try again when it ends');
    this.running = true;
    try {
      const started = this.clock.nowMs();
      // The signing key stays on this machine: a backup does not let an admin sign receipts.
      // Staged receipts are chained in the held session first: the copy holds every fill with its receipt (docs/receipts.md).
      const tar = await this.database.embeddedSnapshot([EMBEDDED_KEY_FILE], (sql) => this.journal.chainOn(sql).then(() => undefined));
      const paused = this.clock.nowMs() - started;
      const file = await gzipAsync(tar);
      const sha256 = createHash('sha256').update(file).digest('hex');
      logger.event('info', 'embedded backup taken', { bytes: file.length, data_dir_bytes: tar.length, paused_ms: paused, sha256 }, 'Backup');
      void reply.header('x-backup-sha256', sha256);
      void reply.header('x-backup-paused-ms', String(paused));
      return new StreamableFile(file, { type: 'application/gzip', disposition: `attachment; filename="${fileName(started)}"`, length: file.length });
    } finally {
      this.running = false;
    }
  }
}
