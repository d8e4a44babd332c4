import 'reflect-metadata';
import { IsOptional, Matches } from 'class-validator';
import { AppError } from '../errors/app-error';
import { validationPipe } from './validation';

class PageQuery {
  @IsOptional()
  @Matches(/^[1-9][0-9]{0,3}$/, { message: 'limit must be an integer from 1 to 9999' })
  limit?: string;
}

const query = { type: 'query' as const, metatype: PageQuery, data: '' };

describe('validationPipe (query strings remembered once accepted)', () => {
  it('gives a DTO instance of its own per request, equal to what validation makes', async () => {
    const pipe = validationPipe();
    const a = (await pipe.transform({ limit: '10' }, query)) as PageQuery;
    const b = (await pipe.transform({ limit: '10' }, query)) as PageQuery;
    expect(a).toBeInstanceOf(PageQuery);
    expect(b).toBeInstanceOf(PageQuery);
    expect(b).toEqual({ limit: '10' });
    expect(b).not.toBe(a);
    b.limit = '11';
    expect(await pipe.transform({ limit: '10' }, query)).toEqual({ limit: '10' });
    expect(await pipe.transform({}, query)).toEqual({});
  });

  it('refuses bad input every time (a refusal is never remembered), naming the field', async () => {
    const pipe = validationPipe();
    for (let i = 0; i < 2; i++) {
      await expect(pipe.transform({ limit: '0' }, query)).rejects.toEqual(new AppError('INVALID_PARAMS', 'limit must be an integer from 1 to 9999'));
      await expect(pipe.transform({ limit: '5', other: 'x' }, query)).rejects.toBeInstanceOf(AppError);
    }
  });

  it('validates a body every time (only query strings are remembered)', async () => {
    const pipe = validationPipe();
    const body = { type: 'body' as const, metatype: PageQuery, data: '' };
    const spy = jest.spyOn(Object.getPrototypeOf(Object.getPrototypeOf(pipe)), 'transform');
    await pipe.transform({ limit: '10' }, body);
    await pipe.transform({ limit: '10' }, body);
    await pipe.transform({ limit: '10' }, query);
    await pipe.transform({ limit: '10' }, query);
    expect(spy).toHaveBeenCalledTimes(3);
    spy.mockRestore();
  });
});
