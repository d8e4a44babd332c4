import type { ViewVersions } from '../../common/broadcast/view-versions';
import type { JobRunner } from '../../common/jobs/job-runner';
import { MetricsService } from './metrics.service';

const jobs = { depths: async () => ({}) } as unknown as JobRunner;

/** The value of an unlabelled sample in a scrape. */
async function sample(metrics: MetricsService, name: string): Promise<number | undefined> {
  const line = (await metrics.scrape()).body.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

describe('MetricsService: legwork_stale_views', () => {
  it('counts the views the instance cannot confirm, at each scrape', async () => {
    let stale: string[] = [];
    const views = { stale: () => stale } as unknown as ViewVersions;
    const metrics = new MetricsService(jobs, views);
    expect(await sample(metrics, 'legwork_stale_views')).toBe(0);
    stale = ['instruments.changed', 'market-data.changed'];
    expect(await sample(metrics, 'legwork_stale_views')).toBe(2);
    stale = [];
    expect(await sample(metrics, 'legwork_stale_views')).toBe(0);
  });

  it('answers 0 without a view checker (a service built alone)', async () => {
    expect(await sample(new MetricsService(jobs), 'legwork_stale_views')).toBe(0);
  });
});
