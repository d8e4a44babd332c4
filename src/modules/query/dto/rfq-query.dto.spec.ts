import 'reflect-metadata';
import { validationPipe } from '../../../common/http/validation';
import { RfqFillsQueryDto, RfqPositionsQueryDto } from './rfq-query.dto';

/** `limit` is checked by the DTO alone (the service reads it): 1 to 1000, canonical decimal text. */
describe.each([RfqPositionsQueryDto, RfqFillsQueryDto])('%p limit', (dto) => {
  const parse = (limit: string) => validationPipe().transform({ limit }, { type: 'query', metatype: dto, data: '' });

  it.each(['1', '99', '500', '999', '1000'])('accepts %s', async (limit) => {
    expect(await parse(limit)).toEqual({ limit });
  });

  it.each(['0', '01', '1001', '5000', '9999', '10000', '-1', '1.5', 'ten', ''])('refuses %j with the contract message', async (limit) => {
    await expect(parse(limit)).rejects.toMatchObject({ code: 'INVALID_PARAMS', message: 'limit must be an integer from 1 to 1000' });
  });
});
