// Registry tokens as the distribution token-auth protocol wants them: JWTs signed with an ES256
// (P-256) key whose public half the registry trusts as a JWKS file (auth.token.jwks), named by
// its RFC 7638 thumbprint in the header's `kid`.
import { createHash, createPrivateKey, createPublicKey, randomUUID, sign, type KeyObject } from 'node:crypto';
import type { RegistryAccess } from '../../rules/registry-access.ts';

export interface TokenSigner {
  privateKey: KeyObject;
  kid: string;
  /** `{"keys": [...]}`: what the registry's auth.token.jwks file holds. */
  jwks: { keys: Record<string, string>[] };
}

/** The signer of a PEM private key; throws when it is not a P-256 key. */
export function tokenSigner(pem: string): TokenSigner {
  const privateKey = createPrivateKey(pem);
  if (privateKey.asymmetricKeyType !== 'ec' || privateKey.asymmetricKeyDetails?.namedCurve !== 'prime256v1')
    throw new Error('the registry token key must be an EC P-256 private key (PEM), for ES256');
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' }) as Record<string, string>;
  // RFC 7638: the required members, in lexicographic order, without whitespace.
  const thumbprint = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  const kid = createHash('sha256').update(thumbprint).digest('base64url');
  return { privateKey, kid, jwks: { keys: [{ ...jwk, kid, use: 'sig', alg: 'ES256' }] } };
}

export interface TokenClaims {
  issuer: string;
  service: string;
  subject: string;
  access: RegistryAccess[];
  nowSeconds: number;
  lifetimeSeconds: number;
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A signed token: exp, nbf and iat as integers (the registry refuses fractions). */
export function signRegistryToken(signer: TokenSigner, claims: TokenClaims): string {
  const header = base64url({ typ: 'JWT', alg: 'ES256', kid: signer.kid });
  const payload = base64url({
    iss: claims.issuer,
    sub: claims.subject,
    aud: claims.service,
    exp: claims.nowSeconds + claims.lifetimeSeconds,
    nbf: claims.nowSeconds,
    iat: claims.nowSeconds,
    jti: randomUUID(),
    access: claims.access,
  });
  const signature = sign('sha256', Buffer.from(`${header}.${payload}`), {
    key: signer.privateKey,
    dsaEncoding: 'ieee-p1363',
  }).toString('base64url');
  return `${header}.${payload}.${signature}`;
}
