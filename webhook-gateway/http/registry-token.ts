// GET|POST /registry/token: the token endpoint (`realm`) of the registry builds push to, and GET
// /registry/jwks.json, the public key the registry trusts (docs/adr/0006). A build's credential
// (rules/registry-access.ts, minted by the operator) or none at all is traded for a short-lived
// token allowing what that credential grants of the scopes asked; what it does not grant is left
// out of the token, and the registry refuses it (401 insufficient_scope). Served from memory.
import { grantedAccess, parseScope, readRegistryCredential } from '../../rules/registry-access.ts';
import type { RegistryAccess, RegistryCredential } from '../../rules/registry-access.ts';
import { signRegistryToken, type TokenSigner } from '../registry/token-signer.ts';
import type { GatewayContext } from './context.ts';
import { sendJson, type Exchange } from './exchange.ts';
import { authFailure } from './guards.ts';
import { HttpError } from './http-error.ts';
import { mediaType, readBody } from './read-body.ts';

export const REGISTRY_TOKEN_PATH = '/registry/token';
export const REGISTRY_JWKS_PATH = '/registry/jwks.json';

/** What the token endpoint needs; without it both paths answer 404. */
export interface RegistryTokens {
  signer: TokenSigner;
  /** The registry's auth.token.service: tokens are for it alone (their `aud`). */
  service: string;
  /** The registry's auth.token.issuer (`iss`). */
  issuer: string;
  /** Repositories anyone may pull (`slipway/*`: base and builder images). */
  publicRepositories: string[];
  lifetimeSeconds: number;
}

const FORM_LIMIT_BYTES = 16 * 1024;
const FORM_TIMEOUT_MS = 10_000;

function tokensOf(ctx: GatewayContext): RegistryTokens {
  if (!ctx.registryTokens) throw new HttpError(404, 'not_found', 'this gateway issues no registry tokens');
  return ctx.registryTokens;
}

export function serveRegistryJwks(ctx: GatewayContext, exchange: Exchange): void {
  sendJson(exchange, 200, tokensOf(ctx).signer.jwks);
}

export async function handleRegistryToken(ctx: GatewayContext, exchange: Exchange, url: URL): Promise<void> {
  const tokens = tokensOf(ctx);
  exchange.log.slug = 'registry';
  const asked = exchange.req.method === 'POST' ? await formRequest(exchange) : queryRequest(exchange, url);
  if (asked.service !== tokens.service)
    throw new HttpError(
      400,
      'invalid_request',
      `this endpoint issues tokens for service ${JSON.stringify(tokens.service)}`,
    );
  const nowSeconds = Math.floor(ctx.now().getTime() / 1000);
  let credential: RegistryCredential | undefined;
  if (asked.username !== undefined) {
    const key = ctx.archiveSigningKey;
    credential =
      key === undefined
        ? undefined
        : readRegistryCredential(key, asked.username, asked.password ?? '', nowSeconds);
    if (!credential)
      throw authFailure(
        ctx,
        exchange,
        new HttpError(401, 'unauthorized', 'the registry credential is not valid (or has expired)', {
          'WWW-Authenticate': 'Basic realm="slipway registry"',
        }),
      );
  }
  const access = grantedAccess(asked.scopes, credential, tokens.publicRepositories);
  // Who asked and what they got (neither is secret: the password is not logged).
  exchange.log.registrySubject = credential ? asked.username : 'anonymous';
  exchange.log.registryAccess = access.map((a) => `${a.name}:${a.actions.join(',')}`).join(' ');
  const token = signRegistryToken(tokens.signer, {
    issuer: tokens.issuer,
    service: tokens.service,
    subject: credential ? asked.username! : '',
    access,
    nowSeconds,
    lifetimeSeconds: tokens.lifetimeSeconds,
  });
  exchange.res.setHeader('Cache-Control', 'no-store');
  sendJson(exchange, 200, {
    token,
    access_token: token,
    expires_in: tokens.lifetimeSeconds,
    issued_at: new Date(nowSeconds * 1000).toISOString(),
  });
}

interface TokenRequest {
  service: string | null;
  scopes: RegistryAccess[];
  username?: string;
  password?: string;
}

/** GET ?service=…&scope=…&scope=…, with the credential (if any) as Basic authorization. */
function queryRequest(exchange: Exchange, url: URL): TokenRequest {
  const basic = basicCredentials(exchange.req.headers.authorization);
  return {
    service: url.searchParams.get('service'),
    scopes: scopesOf(url.searchParams.getAll('scope').flatMap((v) => v.split(' '))),
    ...basic,
  };
}

/** POST grant_type=password (containerd, BuildKit): the form holds the credential. */
async function formRequest(exchange: Exchange): Promise<TokenRequest> {
  if (mediaType(exchange) !== 'application/x-www-form-urlencoded')
    throw new HttpError(415, 'unsupported_media_type', 'send an application/x-www-form-urlencoded form');
  const form = new URLSearchParams(
    (await readBody(exchange, FORM_LIMIT_BYTES, FORM_TIMEOUT_MS)).toString('utf8'),
  );
  const grant = form.get('grant_type');
  if (grant !== 'password')
    throw new HttpError(
      400,
      'unsupported_grant_type',
      'only grant_type=password is supported (no refresh tokens are issued)',
    );
  return {
    service: form.get('service'),
    scopes: scopesOf(form.getAll('scope').flatMap((s) => s.split(' '))),
    username: form.get('username') ?? '',
    password: form.get('password') ?? '',
  };
}

function scopesOf(values: string[]): RegistryAccess[] {
  return values.filter(Boolean).map((value) => {
    const scope = parseScope(value);
    if (!scope) throw new HttpError(400, 'invalid_scope', `not a scope: ${JSON.stringify(value)}`);
    return scope;
  });
}

function basicCredentials(header: string | undefined): { username?: string; password?: string } {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match) return {};
  const text = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  return colon < 0
    ? { username: text, password: '' }
    : { username: text.slice(0, colon), password: text.slice(colon + 1) };
}
