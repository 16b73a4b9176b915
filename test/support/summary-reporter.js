/**
 * Prints `N passed, M failed` as the very last line of a Jest run (the line CI reads). Test files that could not
 * run at all (syntax errors, a throwing import, a failing beforeAll outside any test) count as one failure each.
 * Written when the process exits, so that nothing Jest prints later (its own summary, globalTeardown) follows it.
 */
import { writeSync } from 'node:fs';

export default class SummaryReporter {
  #line = null;

  onRunComplete(_testContexts, results) {
    const passed = results.numPassedTests;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    if (this.#line === null) process.once('exit', () => writeSync(1, this.#line));
    this.#line = `${passed} passed, ${failed} failed\n`;
  }
}
