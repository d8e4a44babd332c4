import { Module } from '@nestjs/common';
import { InstrumentsService } from './instruments.service';

@Module({ providers: [InstrumentsService], exports: [InstrumentsService] })
export class InstrumentsModule {}
