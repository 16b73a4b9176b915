/**
 * Stands in for htmlparser2 in the Lambda bundles (infra/bundling.ts): the tokenizer the sanitiser uses
 * (lib/text/sanitize.ts) loads from a file of its own the first time HTML is read, so requests that never sanitise or
 * decode HTML never load it. The file itself is htmlparser2's own tokenizer (`export { Tokenizer } from 'htmlparser2'`).
 */
import type { Tokenizer as Real } from 'htmlparser2';
import { lazyModule } from '../../lazy-module.js';

export class Tokenizer {
  private readonly real: Real;

  constructor(...args: ConstructorParameters<typeof Real>) {
    this.real = new (lazyModule<{ Tokenizer: typeof Real }>('htmlparser2').Tokenizer)(...args);
  }

  write(chunk: string): void {
    this.real.write(chunk);
  }

  end(): void {
    this.real.end();
  }
}
