import { Global, Module } from '@nestjs/common';
import { JournalModule } from '../journal/journal.module';
import { AuditRepository } from './audit.repository';
import { AuditService } from './audit.service';
import { AuditTrail } from './audit-trail.interceptor';

/**
 * The admin audit log (docs/spec/design.md section 16). Owns audit_log and audit_head
 * (AuditRepository). Global because every module that declares an admin command route hangs
 * `@UseInterceptors(AuditTrail)` on it, and Nest builds that interceptor in the route's module.
 */
@Global()
@Module({
  // The exchange key signs the audit head (docs/spec/design.md section 20).
  imports: [JournalModule],
  providers: [AuditRepository, AuditService, AuditTrail],
  exports: [AuditService, AuditTrail],
})
export class AuditModule {}
