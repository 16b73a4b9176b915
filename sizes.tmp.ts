import { build } from 'esbuild';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { esbuildBuildOptions } from './infra/bundling.ts';
const extra = JSON.parse(process.argv[2] ?? '{}');
const dir = mkdtempSync(join(tmpdir(), 'b-'));
for (const g of ['root', 'events', 'venues', 'categories']) {
  const r = await build({ ...esbuildBuildOptions(join('/work/main', 'functions', `${g}.ts`), join(dir, g)), ...extra, logLevel: 'error', metafile: true });
  const f = Object.keys(r.metafile.outputs).find((k) => k.endsWith('.mjs'))!;
  console.log(g, (r.metafile.outputs[f]!.bytes / 1024).toFixed(1), 'KiB');
}
