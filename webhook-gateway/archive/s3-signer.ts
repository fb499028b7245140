// Signs the S3 store's requests with AWS Signature Version 4 (@smithy/signature-v4, the SDK's
// own signer) and credentials from the AWS SDK's provider chain, so the gateway authenticates
// however AWS users expect: static keys (ours or AWS_ACCESS_KEY_ID/...), temporary ones with a
// session token, IRSA (a web identity token file), EKS Pod Identity and ECS (container
// credentials), profiles and the instance metadata service. The chain caches credentials and
// renews them before they expire.
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import type {
  AwsCredentialIdentity,
  AwsCredentialIdentityProvider,
  Checksum,
  SourceData,
} from '@smithy/types';

export type S3Credentials = AwsCredentialIdentity | AwsCredentialIdentityProvider;

/** Static keys when both are given (with a session token for temporary ones); else AWS's chain. */
export function s3Credentials(keys: {
  accessKeyId?: string;
  secretAccessKey?: string;
  sessionToken?: string;
}): S3Credentials {
  if (keys.accessKeyId && keys.secretAccessKey) {
    return {
      accessKeyId: keys.accessKeyId,
      secretAccessKey: keys.secretAccessKey,
      ...(keys.sessionToken ? { sessionToken: keys.sessionToken } : {}),
    };
  }
  return awsCredentialChain();
}

/** The SDK's default chain, loaded on first use: a gateway with static keys never loads it. */
function awsCredentialChain(): AwsCredentialIdentityProvider {
  let chain: Promise<AwsCredentialIdentityProvider> | undefined;
  return async () => {
    chain ??= import('@aws-sdk/credential-provider-node').then((m) => m.defaultProvider());
    return (await chain)();
  };
}

/** SHA-256 and HMAC-SHA-256 from node:crypto, in the shape the signer asks for. */
class NodeSha256 implements Checksum {
  readonly #secret: SourceData | undefined;
  #hash: Hash | Hmac;

  constructor(secret?: SourceData) {
    this.#secret = secret;
    this.#hash = this.#fresh();
  }

  update(data: Uint8Array): void {
    this.#hash.update(data);
  }

  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.#hash.digest());
  }

  reset(): void {
    this.#hash = this.#fresh();
  }

  #fresh(): Hash | Hmac {
    if (this.#secret === undefined) return createHash('sha256');
    const key = typeof this.#secret === 'string' ? this.#secret : Buffer.from(this.#secret as Uint8Array);
    return createHmac('sha256', key);
  }
}

export interface S3RequestToSign {
  method: string;
  url: URL;
  /** Lower-case names; `x-amz-content-sha256` carries the payload's hash. */
  headers: Record<string, string>;
}

export class S3Signer {
  readonly #signer: SignatureV4;

  constructor(credentials: S3Credentials, region: string) {
    this.#signer = new SignatureV4({
      credentials,
      region,
      service: 's3',
      sha256: NodeSha256,
      // S3 signs the path as sent: each segment encoded once, not twice as other services do.
      uriEscapePath: false,
    });
  }

  /** The headers to send: the request's, plus x-amz-date, the session token and authorization. */
  async sign(request: S3RequestToSign, now: Date): Promise<Record<string, string>> {
    const { url } = request;
    const query: Record<string, string> = {};
    for (const [name, value] of url.searchParams) query[name] = value;
    const signed = await this.#signer.sign(
      {
        method: request.method,
        protocol: url.protocol,
        hostname: url.hostname,
        ...(url.port ? { port: Number(url.port) } : {}),
        path: url.pathname,
        query,
        headers: { ...request.headers, host: url.host },
      },
      { signingDate: now },
    );
    // The HTTP client derives Host from the URL exactly as it was signed.
    const { host: _host, ...headers } = signed.headers;
    return headers;
  }
}
