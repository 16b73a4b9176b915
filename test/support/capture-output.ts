/**
 * What the Powertools Logger and Metrics of in-process handlers write (they write to process.stdout and
 * process.stderr directly, not through the global console): captured while a test runs, as parsed JSON lines.
 */
import { jest } from '@jest/globals';

export interface CapturedOutput {
  /** Every JSON line written so far, stdout and stderr in order. */
  lines(): Record<string, any>[];
  /** The text of every write, JSON or not. */
  text(): string;
  restore(): void;
}

export function captureOutput(): CapturedOutput {
  const chunks: string[] = [];
  const spies = [process.stdout, process.stderr].map((stream) =>
    jest.spyOn(stream, 'write').mockImplementation(((chunk: string | Uint8Array) => {
      chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return true;
    }) as never));
  return {
    lines: () => chunks.join('').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, any>),
    text: () => chunks.join(''),
    restore: () => spies.forEach((s) => s.mockRestore()),
  };
}
