import { afterEach, beforeEach, describe } from 'vitest';
import type { ConformanceTarget, SuiteContext } from './conformance-helpers.js';
import { describeCrudConformance } from './crud-conformance.js';
import { describeListConformance } from './list-conformance.js';
import { describeUpdateConformance } from './update-conformance.js';
import { describeWatchConformance } from './watch-conformance.js';
import { describeWatchStartConformance } from './watch-start-conformance.js';
import { describeCapabilitiesConformance } from './capabilities-conformance.js';

let suiteCounter = 0;

/**
 * Declares the storage conformance suite (vitest `describe`/`it` blocks) against targets made by
 * `newTarget`, one per test. Every test also works below its own key prefix (all of them below
 * `/registry/conformance/`), so a target may share one backend between tests; tests that compact do so
 * at the backend's current revision only.
 * The target's backend must send progress notifications at most ~1 s apart.
 */
export function runStorageConformance(name: string, newTarget: () => Promise<ConformanceTarget>): void {
  const run = `${Date.now().toString(36)}${(suiteCounter++).toString(36)}`;
  let testCounter = 0;
  let current: ConformanceTarget | undefined;
  const context: SuiteContext = {
    get target(): ConformanceTarget {
      if (!current) throw new Error('the conformance target is not set up');
      return current;
    },
    prefix: () => `/registry/conformance/${run}-${(testCounter++).toString(36)}/`,
  };

  describe(`storage conformance: ${name}`, () => {
    beforeEach(async () => {
      current = await newTarget();
    });
    afterEach(async () => {
      const target = current;
      current = undefined;
      await target?.close();
    });
    describeCrudConformance(context);
    describeListConformance(context);
    describeUpdateConformance(context);
    describeWatchConformance(context);
    describeWatchStartConformance(context);
    describeCapabilitiesConformance(context);
  });
}
