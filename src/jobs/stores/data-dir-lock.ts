import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * One service process per DATA_DIR: `pagewright.pid` names the process that works its jobs. A second process
 * on the same folder is refused at once (it would run the same jobs twice); a file left by a process that is
 * gone (kill -9) is taken over. The same process may open the folder again (tests, a rebuilt app).
 */
export class DataDirLock {
  private constructor(private readonly file: string) {}

  static take(dataDir: string): DataDirLock {
    const file = path.join(dataDir, 'pagewright.pid');
    let holder = NaN;
    try {
      holder = Number(readFileSync(file, 'utf8').trim());
    } catch {
      // no lock file yet
    }
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && alive(holder)) {
      throw new Error(`${dataDir} is in use by another Pagewright process (pid ${holder})`);
    }
    writeFileSync(file, `${process.pid}\n`);
    return new DataDirLock(file);
  }

  release(): void {
    try {
      if (Number(readFileSync(this.file, 'utf8').trim()) === process.pid) unlinkSync(this.file);
    } catch {
      // already gone
    }
  }
}
