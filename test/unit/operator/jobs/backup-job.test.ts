// backup-job.ts: the Job that dumps an Environment's database before a rollout, and where to.
import { describe, expect, it } from '@jest/globals';
import { backupJob, backupLocation } from '../../../../operator/jobs/backup-job.ts';
import { loadConfig } from '../../../../operator/config.ts';
import { bundle, database, environment, spec, stored } from '../../../support/builders.ts';

const settings = loadConfig({ SLIPWAY_REGISTRY: 'registry.test:5000' });

describe('backup Job', () => {
  it('dumps the environment database into its volume, reading credentials from the Secret', () => {
    const env = environment('staging', stored(), spec(database));
    const job = backupJob(bundle('b1', stored()), env, settings);
    const c = job.spec!.template.spec!.containers[0]!;
    expect(job.metadata?.name).toBe('b1-backup');
    expect(c.image).toBe('mysql:8.4');
    expect(c.command?.[2]).toContain('mysqldump');
    expect(c.env).toContainEqual({
      name: 'MYSQL_PWD',
      valueFrom: { secretKeyRef: { name: 'db', key: 'password', optional: false } },
    });
    expect(c.env).toContainEqual({ name: 'TARGET', value: '/backup/shop/staging/b1.sql' });
    expect(job.spec!.template.spec!.volumes).toEqual([
      { name: 'backup', persistentVolumeClaim: { claimName: 'backups' } },
    ]);
    expect(backupLocation(env, 'b1')).toBe('pvc://backups/shop/staging/b1.sql');
  });

  it('uses pg_dump for PostgreSQL', () => {
    const env = environment(
      'staging',
      stored(),
      spec({
        ...database,
        database: { engine: 'postgresql', secretRef: { name: 'db' } },
      }),
    );
    const c = backupJob(bundle('b1', stored()), env, settings).spec!.template.spec!.containers[0]!;
    expect(c.image).toBe('postgres:17');
    expect(c.command?.[2]).toContain('pg_dump');
    expect(backupLocation(env, 'b1')).toBe('pvc://backups/shop/staging/b1.dump');
  });

  it('refuses a path prefix that climbs out of the volume', () => {
    const env = environment(
      'staging',
      stored(),
      spec({
        ...database,
        backupStorage: { persistentVolumeClaim: { claimName: 'backups' }, pathPrefix: '../other' },
      }),
    );
    expect(backupLocation(env, 'b1')).toBeUndefined();
  });
});
