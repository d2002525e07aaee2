// Writes docs/providers.md from the provider capability table (schemas/provider-capabilities.ts),
// through the build (`npm run docs:providers` builds first). test/api/providers.test.ts fails when they differ.
import { writeFileSync } from 'node:fs';

const { renderProviderDoc } = await import(new URL('../../dist/src/openapi/provider-doc.js', import.meta.url).href);
writeFileSync(new URL('../../docs/providers.md', import.meta.url), renderProviderDoc());
process.stdout.write('docs/providers.md written\n');
