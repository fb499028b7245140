// Text from outside (commit messages, upload comments, people's --comment) that Slipway stores
// and shows: control characters could drive a terminal (escape sequences) or hide what a line
// says (bidirectional overrides), so they are removed where text is stored and escaped where
// the CLI prints.

/** C0 and C1 controls, DEL, the bidirectional marks, embeddings, overrides and isolates. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/** The text without control characters; a tab or line break becomes a space. */
export function withoutControlCharacters(text: string): string {
  return text.replace(/[\t\r\n]/g, ' ').replace(CONTROLS, '');
}

/** The text with each control character shown as an escape (`\x1b`, `\u202e`), for printing. */
export function escapeControlCharacters(text: string): string {
  return text.replace(CONTROLS, (c) => {
    const code = c.codePointAt(0)!;
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`;
  });
}
