// Jest transformer: erase TypeScript types exactly as `node file.ts` does on Node 24.
// Types become whitespace, so line and column numbers in stack traces stay true.
import { stripTypeScriptTypes } from 'node:module';

export default {
  process(source, filename) {
    if (!filename.endsWith('.ts')) return { code: source };
    return { code: stripTypeScriptTypes(source, { mode: 'strip' }) };
  },
};
