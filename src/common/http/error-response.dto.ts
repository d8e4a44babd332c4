import { ApiProperty } from '@nestjs/swagger';

/** The body of every HTTP error (HttpErrorFilter, docs/spec/design.md section 8), as the OpenAPI document names it. */
export class ErrorResponse {
  @ApiProperty({ description: 'What went wrong; names the field when an input is refused' })
  error: string;
}
