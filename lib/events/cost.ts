/**
 * Event cost (reference §4.7): the stored cost strings, their numeric values, the currency symbol and
 * position parsed from them, and the display string ("Free – 30$").
 */
import { slugify } from '../text/slug.js';

export interface CostDetails {
  currency_symbol: string;
  currency_code: string;
  currency_position: string;
  values: string[];
}

const NUMBER = /\d+(?:[.,]\d+)*/g;

/** "1,000.50" → "1000.50"; "12,5" → "12.5" (a single comma or dot followed by 1–2 digits is decimal). */
function normaliseNumber(raw: string): string {
  const decimal = /^(.*?)[.,](\d{1,2})$/.exec(raw);
  const whole = (decimal ? decimal[1]! : raw).replace(/[.,]/g, '');
  return decimal ? `${whole}.${decimal[2]}` : whole;
}

export function costDetails(costs: string[]): CostDetails {
  const values = new Map<string, number>();
  let symbol = '';
  let position = '';
  for (const cost of costs) {
    const numbers = cost.match(NUMBER);
    if (!numbers) {
      const word = slugify(cost);
      if (word) values.set(word, Number.NaN);
      continue;
    }
    for (const n of numbers) {
      const v = normaliseNumber(n);
      values.set(v, Number(v));
    }
    if (!symbol) {
      const before = cost.slice(0, cost.search(/\d/)).trim();
      const after = cost.replace(/^.*\d/s, '').trim();
      if (before && !/[-–]$/.test(before)) [symbol, position] = [before, 'prefix'];
      else if (after) [symbol, position] = [after, 'postfix'];
    }
  }
  const sorted = [...values.entries()].sort(([, a], [, b]) => (Number.isNaN(a) ? 1 : Number.isNaN(b) ? -1 : a - b));
  return { currency_symbol: symbol, currency_code: '', currency_position: position, values: sorted.map(([v]) => v) };
}

export function formatCost(costs: string[], details: CostDetails = costDetails(costs)): string {
  const numeric = details.values.filter((v) => /^\d+(\.\d+)?$/.test(v));
  if (numeric.length === 0) return costs.join(', ');
  const show = (v: string): string => {
    if (Number(v) === 0) return 'Free';
    if (!details.currency_symbol) return v;
    return details.currency_position === 'prefix' ? `${details.currency_symbol}${v}` : `${v}${details.currency_symbol}`;
  };
  const min = numeric[0]!;
  const max = numeric[numeric.length - 1]!;
  return min === max ? show(min) : `${show(min)} – ${show(max)}`;
}
