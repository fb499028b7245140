// Reads the multipart body of an upload: text fields into memory (small, bounded), the `archive`
// file streamed into the archive store. Resolves only when both are complete; on any failure the
// stored or half-written archive is gone before it rejects.
import busboy from 'busboy';
import type { StoredArchive } from '../archive/store.ts';
import { MAX_UPLOAD_FIELD_BYTES, MAX_UPLOAD_FIELDS, UPLOAD_IDLE_TIMEOUT_MS } from '../limits.ts';
import type { GatewayContext } from './context.ts';
import { ClientGoneError, startBody, type Exchange } from './exchange.ts';
import { HttpError } from './http-error.ts';

export interface UploadForm {
  fields: Map<string, string>;
  archive: StoredArchive;
}

export function receiveUploadForm(
  ctx: GatewayContext,
  exchange: Exchange,
  target: { namespace: string; project: string },
): Promise<UploadForm> {
  const { req } = exchange;
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      limits: {
        files: 1,
        fields: MAX_UPLOAD_FIELDS,
        parts: MAX_UPLOAD_FIELDS + 1,
        fieldSize: MAX_UPLOAD_FIELD_BYTES,
        fieldNameSize: 100,
      },
    });
  } catch (error) {
    return Promise.reject(
      new HttpError(
        400,
        'malformed_multipart',
        `the multipart body cannot be read (${(error as Error).message})`,
      ),
    );
  }

  return new Promise<UploadForm>((resolve, reject) => {
    const fields = new Map<string, string>();
    let archive: Promise<StoredArchive> | undefined;
    let failed = false;

    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      req.unpipe(parser);
      parser.destroy(error instanceof Error ? error : new Error(String(error)));
      // Wait for the store to settle, so nothing is left on disk once the caller answers.
      const cleanup = archive
        ? archive.then(
            (stored) => (stored.alreadyStored ? undefined : ctx.store.remove(stored.key)),
            () => undefined,
          )
        : Promise.resolve();
      cleanup.then(
        () => reject(error),
        () => reject(error),
      );
    };

    parser.on('file', (name, stream) => {
      if (name !== 'archive' || archive) {
        stream.resume();
        fail(
          new HttpError(
            400,
            'unexpected_file',
            `unexpected file field '${name.slice(0, 100)}'; send one file named archive`,
          ),
        );
        return;
      }
      archive = ctx.store.receive(stream, target, ctx.limits);
      archive.catch(fail);
    });
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) {
        fail(
          new HttpError(
            400,
            'field_too_long',
            `the field '${name.slice(0, 100)}' is longer than ${MAX_UPLOAD_FIELD_BYTES} bytes`,
          ),
        );
      } else {
        fields.set(name, value);
      }
    });
    const tooMany = () =>
      fail(new HttpError(400, 'too_many_parts', 'the upload has too many fields or files'));
    parser.on('filesLimit', tooMany);
    parser.on('fieldsLimit', tooMany);
    parser.on('partsLimit', tooMany);
    parser.on('error', (error: Error) => {
      if (req.complete)
        fail(
          new HttpError(400, 'malformed_multipart', `the multipart body cannot be read (${error.message})`),
        );
      else fail(new ClientGoneError('the client broke off the upload'));
    });
    parser.on('close', () => {
      if (failed) return;
      if (!archive) {
        fail(new HttpError(400, 'missing_archive', 'the upload has no file field named archive'));
        return;
      }
      archive.then((stored) => {
        if (!failed) resolve({ fields, archive: stored });
      }, fail);
    });

    req.once('close', () => {
      if (!req.complete) fail(new ClientGoneError('the client broke off the upload'));
    });
    req.setTimeout(UPLOAD_IDLE_TIMEOUT_MS, () => req.destroy());
    // Once the body is in, the socket is quiet while the archive is stored (an S3 PUT of 512 MiB,
    // an fsync): that is not an idle client, and must not cut off the answer it waits for.
    req.once('end', () => req.setTimeout(0));

    startBody(exchange);
    req.pipe(parser);
  });
}
