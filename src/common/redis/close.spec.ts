import type Redis from 'ioredis';
import { closeWithin, quitRedis } from './close';

describe('closeWithin', () => {
  it('a close that settles in time: true, no fallback (a failed close counts as settled)', async () => {
    const fallback = jest.fn();
    await expect(closeWithin(async () => undefined, 200, fallback)).resolves.toBe(true);
    await expect(closeWithin(() => Promise.reject(new Error('already closed')), 200, fallback)).resolves.toBe(true);
    expect(fallback).not.toHaveBeenCalled();
  });

  it('a close that hangs: the fallback runs after the time given, false', async () => {
    const fallback = jest.fn(async () => undefined);
    const started = Date.now();
    await expect(closeWithin(() => new Promise(() => undefined), 50, fallback)).resolves.toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(fallback).toHaveBeenCalledTimes(1);
  });
});

describe('closeWithin, when the fallback hangs too', () => {
  it('gives the fallback as long again, then returns', async () => {
    const started = Date.now();
    await expect(
      closeWithin(
        () => new Promise(() => undefined),
        40,
        () => new Promise(() => undefined),
      ),
    ).resolves.toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('quitRedis', () => {
  const connection = (status: string) => ({ status, quit: jest.fn(async () => 'OK'), disconnect: jest.fn() });

  it('a ready connection: QUIT', async () => {
    const redis = connection('ready');
    await expect(quitRedis(redis as unknown as Redis)).resolves.toBe(true);
    expect(redis.quit).toHaveBeenCalledTimes(1);
    expect(redis.disconnect).not.toHaveBeenCalled();
  });

  it('a connection that is reconnecting (Redis down): disconnected at once, no QUIT to wait out', async () => {
    const redis = connection('reconnecting');
    const started = Date.now();
    await expect(quitRedis(redis as unknown as Redis, 2000)).resolves.toBe(false);
    expect(Date.now() - started).toBeLessThan(100);
    expect(redis.quit).not.toHaveBeenCalled();
    expect(redis.disconnect).toHaveBeenCalledTimes(1);
  });
});
