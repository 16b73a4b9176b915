/**
 * Stands in for rrule in the Lambda bundles (infra/bundling.ts): recurrence rules (lib/events/recurrence.ts) load
 * from a file of their own the first time a request reads or writes a rule, so the other requests' cold starts never
 * load them. The file itself is rrule's own `RRule`.
 */
import type { Options, RRule as Real } from 'rrule';
import { lazyModule } from '../../lazy-module.js';

const real = (): typeof Real => lazyModule<{ RRule: typeof Real }>('rrule').RRule;

export class RRule {
  static parseString(text: string): Partial<Options> {
    return real().parseString(text);
  }

  static optionsToString(options: Partial<Options>): string {
    return real().optionsToString(options);
  }

  private readonly rule: Real;

  constructor(options: Partial<Options>) {
    this.rule = new (real())(options);
  }

  all(iterator?: (date: Date, i: number) => boolean): Date[] {
    return this.rule.all(iterator);
  }
}
