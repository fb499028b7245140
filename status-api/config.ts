// Settings of the status API's HTTP server. The schema fills in defaults, so `{}` is a
// complete configuration: 10 requests per second per client, no trusted proxies.
import { z } from 'zod';
import {
  DEFAULT_BURST,
  DEFAULT_CACHE_MAX_AGE_SECONDS,
  DEFAULT_MAX_TRACKED_CLIENTS,
  DEFAULT_REQUESTS_PER_SECOND,
} from './limits.ts';
import { parseTrustedProxies } from '../lib/client-address.ts';

export const statusApiConfigSchema = z.object({
  rateLimit: z
    .object({
      /** Off only for benchmarks. */
      enabled: z.boolean().default(true),
      requestsPerSecond: z.number().positive().default(DEFAULT_REQUESTS_PER_SECOND),
      burst: z.number().int().min(1).default(DEFAULT_BURST),
      maxClients: z.number().int().min(1).default(DEFAULT_MAX_TRACKED_CLIENTS),
    })
    .prefault({}),
  /** Addresses and CIDR ranges of proxies whose X-Forwarded-For is believed. */
  trustedProxies: z
    .array(z.string())
    .default([])
    .superRefine((entries, ctx) => {
      try {
        parseTrustedProxies(entries);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
      }
    }),
  cacheMaxAgeSeconds: z.number().int().min(0).default(DEFAULT_CACHE_MAX_AGE_SECONDS),
});

export type StatusApiConfig = z.output<typeof statusApiConfigSchema>;
export type StatusApiConfigInput = z.input<typeof statusApiConfigSchema>;
