// Whole-file replacement: a reader sees the old content or the new one, never a half-written file,
// even when the writer is killed mid-write (the temporary file is what gets cut short).
import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export async function writeFileAtomic(path: string, data: string, mode = 0o600): Promise<void> {
  const dir = dirname(path);
  // Same directory as the target: rename is atomic only within one file system.
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const fh = await open(temp, 'wx', mode);
  try {
    await fh.writeFile(data, 'utf8');
    await fh.sync();
  } catch (err) {
    await fh.close().catch(() => {});
    await unlink(temp).catch(() => {});
    throw err;
  }
  await fh.close();
  try {
    await rename(temp, path);
  } catch (err) {
    await unlink(temp).catch(() => {});
    throw err;
  }
  // Persist the rename itself; not every platform lets a directory be opened, so best effort.
  const dh = await open(dir, 'r').catch(() => undefined);
  if (dh)
    await dh
      .sync()
      .catch(() => {})
      .finally(() => dh.close());
}
