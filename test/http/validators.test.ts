// Every route's input schema compiles under the validator's strict ajv, in both input modes. The
// schemas compile on their first use (src/http/validate.ts), so without this a schema ajv refuses
// would fail its route's first request instead of the tests.
import { describe, expect, it } from 'vitest';
import '../../src/roles/http-app.js';
import { compileEveryValidator, validatorCount } from '../../src/http/validate.js';

describe('the input schemas of every route', () => {
  it('compile in JSON and text mode', () => {
    // Importing the app imports every route module, and each makes its validators as it loads.
    expect(validatorCount()).toBeGreaterThan(50);
    expect(() => compileEveryValidator()).not.toThrow();
  });
});
