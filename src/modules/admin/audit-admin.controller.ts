import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminAccess } from '../../common/access/access';
import { AuditService } from '../audit/audit.service';
import { AdminAuditQuery, AuditPageDto } from '../audit/dto/audit.dto';

/** The admin audit log (docs/spec/design.md section 16): who ran which admin command, and how it ended. */
@ApiTags('admin')
@Controller('v1/admin')
export class AuditAdminController {
  constructor(private readonly audit: AuditService) {}

  @Get('audit')
  @AdminAccess('read')
  @ApiOperation({
    summary: 'The admin audit log, newest first, keyset-paginated',
    description:
      'One row per admin command (every non-GET /v1/admin route, through the admin token or an admin session), failed ones included, chained by hash: ' +
      'hash = SHA-256(prev_hash bytes || UTF-8 of the row without hash as RFC 8785 canonical JSON), prev_hash of the first row 64 zeros. ' +
      'A client checks the chain itself from the rows (docs/security.md).',
  })
  @ApiOkResponse({ type: AuditPageDto })
  page(@Query() query: AdminAuditQuery) {
    return this.audit.page({
      after: query.after === undefined ? undefined : Number(query.after),
      limit: query.limit ?? 50,
      action: query.action,
      accountId: query.account_id,
    });
  }
}
