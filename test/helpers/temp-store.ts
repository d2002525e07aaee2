import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { Store } from '../../src/store/store.js';

/**
 * A fresh store file for each test of the calling file, in a temp dir named by `prefix`: opened
 * before the test (handed to `opened`, ahead of the file's own beforeEach hooks declared after
 * this call) and closed and removed after it.
 */
export function storePerTest(prefix: string, opened: (store: Store) => void): void {
  let dir: string | undefined;
  let store: Store | undefined;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    store = Store.open(path.join(dir, 'gateway.db'));
    opened(store);
  });
  afterEach(() => {
    store?.close();
    if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
    [store, dir] = [undefined, undefined];
  });
}
