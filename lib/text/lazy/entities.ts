/**
 * Stands in for entities in the Lambda bundles (infra/bundling.ts): the decoder loads from a file of its own the first
 * time text is decoded (lib/text/sanitize.ts). The file itself is entities' own `decodeHTML`.
 */
import type { decodeHTML as Real } from 'entities';
import { lazyModule } from '../../lazy-module.js';

export const decodeHTML: typeof Real = (...args) => lazyModule<{ decodeHTML: typeof Real }>('entities').decodeHTML(...args);
