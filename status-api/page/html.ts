// HTML that is safe by construction: the `html` template escapes every value put into it, unless
// the value is itself Html (made by this template). User-provided text (names, subjects, update
// contents) can only ever become text, never markup.

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Characters neither XML 1.0 nor HTML allow in text (C0 controls but tab and newlines, lone surrogates). */
const NOT_TEXT =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text as HTML or XML character data (also fit for attribute values in quotes). */
export function escapeHtml(text: string): string {
  return text.replace(NOT_TEXT, '\uFFFD').replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** Markup made by `html`: put into another template as it is. */
export class Html {
  readonly markup: string;
  constructor(markup: string) {
    this.markup = markup;
  }
  toString(): string {
    return this.markup;
  }
}

type Value = Html | string | number | null | undefined | false | readonly Value[];

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.markup;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let markup = strings[0]!;
  values.forEach((value, i) => (markup += render(value) + strings[i + 1]!));
  return new Html(markup);
}
