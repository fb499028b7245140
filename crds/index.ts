// Every kind Slipway defines, and the TypeScript types derived from their schemas.
import type { z } from 'zod';
import type { Resource } from './common.ts';
import { Bundle, bundleReasons, type bundleSpec, type bundleStatus } from './bundle.ts';
import {
  Environment,
  environmentReasons,
  type environmentSpec,
  type environmentStatus,
} from './environment.ts';
import {
  Project,
  notifyReasons,
  projectReasons,
  reportReasons,
  type projectSpec,
  type projectStatus,
} from './project.ts';
import {
  StatusComponent,
  StatusNotice,
  StatusPage,
  statusComponentReasons,
  statusNoticeReasons,
  statusPageReasons,
  statusWebhookReasons,
  type componentSpec,
  type componentStatus,
  type noticeSpec,
  type noticeStatus,
  type statusPageSpec,
  type statusPageStatus,
} from './status.ts';
import { Webhook, webhookReasons, type webhookSpec, type webhookStatus } from './webhook.ts';
import { Preview, previewReasons, type previewSpec, type previewStatus } from './preview.ts';
import { Promotion, promotionReasons, type promotionSpec, type promotionStatus } from './promotion.ts';

export * from './common.ts';
export * from './bundle.ts';
export * from './environment.ts';
export * from './project.ts';
export * from './status.ts';
export * from './webhook.ts';
export * from './preview.ts';
export * from './promotion.ts';
export * from './previews-settings.ts';

export const kinds = [
  Project,
  Environment,
  Webhook,
  Bundle,
  Preview,
  Promotion,
  StatusPage,
  StatusComponent,
  StatusNotice,
];

/** Every kind's condition reasons, as its docs section in docs/resources.md must list them. */
export const reasonsByKind = {
  // Ready's, then Reported's (spec.report), then Notified's (spec.notifications).
  Project: [...projectReasons, ...reportReasons, ...notifyReasons],
  Environment: environmentReasons,
  Webhook: webhookReasons,
  Bundle: bundleReasons,
  Preview: previewReasons,
  Promotion: promotionReasons,
  // Ready's, then WebhooksDelivered's (spec.webhooks).
  StatusPage: [...statusPageReasons, ...statusWebhookReasons],
  StatusComponent: statusComponentReasons,
  StatusNotice: statusNoticeReasons,
} as const;

type Obj<Spec extends z.ZodType, Status extends z.ZodType> = Resource<z.output<Spec>, z.output<Status>>;
export type ProjectObject = Obj<typeof projectSpec, typeof projectStatus>;
export type EnvironmentObject = Obj<typeof environmentSpec, typeof environmentStatus>;
export type WebhookObject = Obj<typeof webhookSpec, typeof webhookStatus>;
export type BundleObject = Obj<typeof bundleSpec, typeof bundleStatus>;
export type PreviewObject = Obj<typeof previewSpec, typeof previewStatus>;
export type PromotionObject = Obj<typeof promotionSpec, typeof promotionStatus>;
export type StatusPageObject = Obj<typeof statusPageSpec, typeof statusPageStatus>;
export type StatusComponentObject = Obj<typeof componentSpec, typeof componentStatus>;
export type StatusNoticeObject = Obj<typeof noticeSpec, typeof noticeStatus>;
