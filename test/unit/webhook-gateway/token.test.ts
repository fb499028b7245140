import { createHmac } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { constantTimeEqual } from '../../../lib/constant-time.ts';
import { deriveWebhookToken, uploadScriptUrl, webhookUrl, withToken } from '../../../rules/webhook-url.ts';
import { isWebhookToken } from '../../../webhook-gateway/token.ts';

describe('webhook URL token', () => {
  it('is base64url(HMAC-SHA256(secret, "slipway-webhook-url:" + slug)) cut to 32 characters', () => {
    const full = createHmac('sha256', 's3cret').update('slipway-webhook-url:shop').digest('base64url');
    expect(deriveWebhookToken('s3cret', 'shop')).toBe(full.slice(0, 32));
    expect(deriveWebhookToken('s3cret', 'shop')).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });

  it('changes with the secret and with the slug', () => {
    const token = deriveWebhookToken('s3cret', 'shop');
    expect(deriveWebhookToken('rotated', 'shop')).not.toBe(token);
    expect(deriveWebhookToken('s3cret', 'shop2')).not.toBe(token);
  });

  it('is checked in constant time and only matches exactly', () => {
    const token = deriveWebhookToken('s3cret', 'shop');
    expect(isWebhookToken(token, 's3cret', 'shop')).toBe(true);
    expect(isWebhookToken(token.slice(0, 31), 's3cret', 'shop')).toBe(false);
    expect(isWebhookToken(token + 'x', 's3cret', 'shop')).toBe(false);
    expect(isWebhookToken(token, 's3cret', 'other')).toBe(false);
  });

  it('is remembered per slug and secret: a rotated secret stops the old token at once', () => {
    const old = deriveWebhookToken('s3cret', 'shop');
    expect(isWebhookToken(old, 's3cret', 'shop')).toBe(true);
    expect(isWebhookToken(old, 'rotated', 'shop')).toBe(false);
    expect(isWebhookToken(deriveWebhookToken('rotated', 'shop'), 'rotated', 'shop')).toBe(true);
    expect(isWebhookToken(old, Buffer.from('s3cret'), 'shop')).toBe(true);
    expect(isWebhookToken(old, Buffer.from('rotated'), 'shop')).toBe(false);
  });

  it('builds the webhook and script URLs', () => {
    const token = deriveWebhookToken('s3cret', 'shop');
    expect(webhookUrl('https://hooks.example.com/', 'shop', 's3cret')).toBe(
      `https://hooks.example.com/hooks/shop/${token}`,
    );
    expect(uploadScriptUrl('https://hooks.example.com')).toBe('https://hooks.example.com/upload.sh');
  });
});

describe('constantTimeEqual', () => {
  it.each([
    ['same', 'same', true],
    ['same', 'Same', false],
    ['short', 'shorter', false],
    ['', '', true],
    ['', 'x', false],
  ])('%j vs %j → %s', (a, b, equal) => {
    expect(constantTimeEqual(a, b)).toBe(equal);
  });
});

describe('withToken', () => {
  it('appends the token to the address status shows, and replaces one an older operator published', () => {
    const url = webhookUrl('https://hooks.example.com/', 'shop', 's3cret');
    expect(withToken('https://hooks.example.com/hooks/shop', 'shop', 's3cret')).toBe(url);
    expect(withToken(`https://hooks.example.com/hooks/shop/old-token`, 'shop', 's3cret')).toBe(url);
    expect(url).toMatch(/^https:\/\/hooks\.example\.com\/hooks\/shop\/[\w-]{32}$/);
  });
});
