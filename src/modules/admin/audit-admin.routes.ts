import type { RouteResult } from '@legwork/protocol';
import { Injectable } from '@nestjs/common';
import { HttpRoute, type RouteInput } from '../../common/http/http-route';
import { AuditService } from '../audit/audit.service';

/** The admin audit log (docs/spec/design.md section 16): who ran which admin command, and how it ended. */
@Injectable()
export class AuditAdminRoutes {
  constructor(private readonly audit: AuditService) {}

  /** The query's texts are checked by the declaration (canonical positive integers, a command name). */
  @HttpRoute('admin.audit')
  page({ query }: RouteInput<'admin.audit'>): Promise<RouteResult<'admin.audit'>> {
    return this.audit.page({
      after: query.after === undefined ? undefined : Number(query.after),
      limit: query.limit === undefined ? 50 : Number(query.limit),
      action: query.action,
      accountId: query.account_id === undefined ? undefined : Number(query.account_id),
    });
  }
}
