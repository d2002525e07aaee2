// Reading a store's WAL: which table or index each frame's page belongs to. A commit writes one
// frame per page it changed (a 24-byte header, then the page), so the frames show which B-trees a
// store's writes cost. Used by store-path.mjs --pages and wal-frames.mjs.
import fs from 'node:fs';

/**
 * The frames of `walFile` since the WAL last restarted (those with its header's salts), up to the
 * last whole frame, by the table or index that owns each page in `db` now (SQLite's dbstat): frames
 * and distinct pages per B-tree, and the commits among the frames. Only the frame headers are read,
 * not the pages (a long run's WAL holds hundreds of MB). Pages new since dbstat's view, or freed,
 * count as '(new or free)'.
 */
export function walFramesByBtree(walFile, db) {
  const fd = fs.openSync(walFile, 'r');
  const frames = new Map();
  let total = 0;
  let commits = 0;
  try {
    const header = Buffer.alloc(32);
    if (fs.readSync(fd, header, 0, 32, 0) < 32) return { total, commits, byBtree: new Map() };
    const pageSize = header.readUInt32BE(8);
    const [salt1, salt2] = [header.readUInt32BE(16), header.readUInt32BE(20)];
    const size = fs.fstatSync(fd).size;
    const frame = Buffer.alloc(16);
    for (let offset = 32; offset + 24 + pageSize <= size; offset += 24 + pageSize) {
      fs.readSync(fd, frame, 0, 16, offset);
      if (frame.readUInt32BE(8) !== salt1 || frame.readUInt32BE(12) !== salt2) break;
      const page = frame.readUInt32BE(0);
      frames.set(page, (frames.get(page) ?? 0) + 1);
      total += 1;
      // The frame that ends a commit carries the database's size in pages; the others carry 0.
      if (frame.readUInt32BE(4) > 0) commits += 1;
    }
  } finally {
    fs.closeSync(fd);
  }
  const owner = new Map(
    db
      .prepare('SELECT name, pageno FROM dbstat')
      .all()
      .map((row) => [row.pageno, row.name]),
  );
  const byBtree = new Map();
  for (const [page, count] of frames) {
    const name = owner.get(page) ?? '(new or free)';
    const entry = byBtree.get(name) ?? { frames: 0, pages: 0 };
    entry.frames += count;
    entry.pages += 1;
    byBtree.set(name, entry);
  }
  return { total, commits, byBtree: new Map([...byBtree].sort((a, b) => b[1].frames - a[1].frames)) };
}
