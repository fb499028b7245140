// The upload script served at GET /upload.sh, with the gateway's base URL filled in.
import { readFileSync } from 'node:fs';

const PLACEHOLDER = "'__SLIPWAY_BASE_URL__'";

let template: string | undefined;

/** The script template as shipped next to this file. */
export function uploadScriptTemplate(): string {
  template ??= readFileSync(new URL('./upload.sh', import.meta.url), 'utf8');
  return template;
}

/** Fills `{base_url}` into the script as a single-quoted shell word. */
export function renderUploadScript(baseUrl: string, source: string = uploadScriptTemplate()): string {
  const url = new URL(baseUrl);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('the base URL must be http(s)');
  if (url.search || url.hash) throw new Error('the base URL must not have a query or fragment');
  const normalised = url.toString().replace(/\/+$/, '');
  if (!source.includes(PLACEHOLDER)) throw new Error('the upload script has no base URL placeholder');
  return source.replace(PLACEHOLDER, () => shellQuote(normalised));
}

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}
