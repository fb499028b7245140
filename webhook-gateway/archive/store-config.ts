// Which archive store the gateway uses, from its environment: the filesystem store on
// SLIPWAY_ARCHIVE_DIR (default), or an S3-compatible bucket, which then only stages uploads in
// SLIPWAY_ARCHIVE_DIR while they are validated. A bad or missing setting stops the process with
// a message naming the variable; the secret key's value never appears in one. Without static
// keys the S3 store takes credentials from the AWS SDK's chain (IRSA, Pod Identity, AWS_* ...).
import { z } from 'zod';
import { S3ArchiveStore } from './s3-store.ts';
import { FilesystemArchiveStore } from './store.ts';

export type ArchiveStoreConfig =
  | { type: 'filesystem'; dir: string }
  | {
      type: 's3';
      stagingDir: string;
      endpoint: string;
      bucket: string;
      region: string;
      prefix: string;
      /** Both or neither: without them, the AWS credential chain. */
      accessKeyId?: string;
      secretAccessKey?: string;
      sessionToken?: string;
    };

const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

const S3_REQUIRED = {
  SLIPWAY_S3_ENDPOINT:
    'the http(s) address of the S3-compatible service, e.g. https://s3.eu-west-1.amazonaws.com or http://minio.storage:9000',
  SLIPWAY_S3_BUCKET: 'the bucket that holds the archives',
} as const;

const envSchema = z
  .object({
    SLIPWAY_ARCHIVE_STORE: optionalText.pipe(
      z
        .enum(['filesystem', 's3'], { message: 'SLIPWAY_ARCHIVE_STORE must be filesystem or s3' })
        .default('filesystem'),
    ),
    SLIPWAY_ARCHIVE_DIR: optionalText.transform((v) => v ?? '/var/lib/slipway/archives'),
    SLIPWAY_S3_ENDPOINT: optionalText,
    SLIPWAY_S3_BUCKET: optionalText,
    SLIPWAY_S3_REGION: optionalText.transform((v) => v ?? 'us-east-1'),
    // Not trimmed: a prefix is part of the object key as written.
    SLIPWAY_S3_PREFIX: z.string().optional().default(''),
    SLIPWAY_S3_ACCESS_KEY_ID: optionalText,
    SLIPWAY_S3_SECRET_ACCESS_KEY: optionalText,
    SLIPWAY_S3_SESSION_TOKEN: optionalText,
  })
  .superRefine((env, ctx) => {
    if (env.SLIPWAY_ARCHIVE_STORE !== 's3') return;
    for (const [name, what] of Object.entries(S3_REQUIRED)) {
      if (env[name as keyof typeof S3_REQUIRED] === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: `${name} is required when SLIPWAY_ARCHIVE_STORE=s3: ${what}`,
        });
      }
    }
    const keys = [env.SLIPWAY_S3_ACCESS_KEY_ID, env.SLIPWAY_S3_SECRET_ACCESS_KEY];
    if (keys.some((k) => k === undefined) && keys.some((k) => k !== undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['SLIPWAY_S3_ACCESS_KEY_ID'],
        message:
          'SLIPWAY_S3_ACCESS_KEY_ID and SLIPWAY_S3_SECRET_ACCESS_KEY go together: set both, or neither to use the AWS credential chain (IRSA, Pod Identity, AWS_* variables)',
      });
    }
    if (env.SLIPWAY_S3_SESSION_TOKEN !== undefined && keys.some((k) => k === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['SLIPWAY_S3_SESSION_TOKEN'],
        message: 'SLIPWAY_S3_SESSION_TOKEN needs SLIPWAY_S3_ACCESS_KEY_ID and SLIPWAY_S3_SECRET_ACCESS_KEY',
      });
    }
    const endpoint = env.SLIPWAY_S3_ENDPOINT;
    if (endpoint !== undefined && !/^https?:\/\/[^/?#]+(\/[^?#]*)?$/.test(endpoint)) {
      ctx.addIssue({
        code: 'custom',
        path: ['SLIPWAY_S3_ENDPOINT'],
        message:
          'SLIPWAY_S3_ENDPOINT must be an http(s) URL without query, e.g. https://s3.eu-west-1.amazonaws.com',
      });
    }
    const bucket = env.SLIPWAY_S3_BUCKET;
    if (bucket !== undefined && !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(bucket)) {
      ctx.addIssue({
        code: 'custom',
        path: ['SLIPWAY_S3_BUCKET'],
        message:
          'SLIPWAY_S3_BUCKET must be a bucket name (no slashes); put a key prefix in SLIPWAY_S3_PREFIX',
      });
    }
    const prefix = env.SLIPWAY_S3_PREFIX;
    if (prefix.startsWith('/') || prefix.split('/').some((s) => s === '.' || s === '..')) {
      ctx.addIssue({
        code: 'custom',
        path: ['SLIPWAY_S3_PREFIX'],
        message:
          "SLIPWAY_S3_PREFIX may not start with '/' or contain '.' or '..' segments (e.g. slipway/archives/)",
      });
    }
  });

export function loadArchiveStoreConfig(
  env: Record<string, string | undefined> = process.env,
): ArchiveStoreConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new Error(
      `invalid archive store configuration: ${parsed.error.issues.map((i) => i.message).join('; ')}`,
    );
  }
  const e = parsed.data;
  if (e.SLIPWAY_ARCHIVE_STORE === 'filesystem') return { type: 'filesystem', dir: e.SLIPWAY_ARCHIVE_DIR };
  return {
    type: 's3',
    stagingDir: e.SLIPWAY_ARCHIVE_DIR,
    endpoint: e.SLIPWAY_S3_ENDPOINT!,
    bucket: e.SLIPWAY_S3_BUCKET!,
    region: e.SLIPWAY_S3_REGION,
    prefix: e.SLIPWAY_S3_PREFIX,
    ...(e.SLIPWAY_S3_ACCESS_KEY_ID ? { accessKeyId: e.SLIPWAY_S3_ACCESS_KEY_ID } : {}),
    ...(e.SLIPWAY_S3_SECRET_ACCESS_KEY ? { secretAccessKey: e.SLIPWAY_S3_SECRET_ACCESS_KEY } : {}),
    ...(e.SLIPWAY_S3_SESSION_TOKEN ? { sessionToken: e.SLIPWAY_S3_SESSION_TOKEN } : {}),
  };
}

export function createArchiveStore(config: ArchiveStoreConfig): FilesystemArchiveStore | S3ArchiveStore {
  return config.type === 'filesystem' ? new FilesystemArchiveStore(config.dir) : new S3ArchiveStore(config);
}
