import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tarEntries, tarWithout } from './tar';

/** A tar made by the system's tar of a small data directory (the backup's shape: PG_VERSION, a key file, a subdirectory). */
function sampleTar(): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'legwork-tar-'));
  try {
    writeFileSync(join(dir, 'PG_VERSION'), '17\n');
    writeFileSync(join(dir, 'exchange-signing-key'), 'ab'.repeat(32) + '\n');
    mkdirSync(join(dir, 'base'));
    writeFileSync(join(dir, 'base', 'big'), Buffer.alloc(1300, 7));
    return execFileSync('tar', ['--format=ustar', '-cf', '-', '-C', dir, 'PG_VERSION', 'exchange-signing-key', 'base']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('tar entries (the embedded backup)', () => {
  it('lists the entries of a tar and drops the ones named, leaving a tar the system reads', () => {
    const tar = sampleTar();
    expect(tarEntries(tar)?.map((e) => e.name)).toEqual(['PG_VERSION', 'exchange-signing-key', 'base/', 'base/big']);
    const without = tarWithout(tar, ['exchange-signing-key']);
    expect(tarEntries(without)?.map((e) => e.name)).toEqual(['PG_VERSION', 'base/', 'base/big']);
    expect(execFileSync('tar', ['-tf', '-'], { input: without }).toString().trim().split('\n')).toEqual(['PG_VERSION', 'base/', 'base/big']);
  });

  it('answers null for bytes that are not a whole tar', () => {
    const tar = sampleTar();
    const corrupt = Buffer.from(tar);
    corrupt[10] ^= 0xff; // a header byte: its checksum no longer holds
    expect(tarEntries(corrupt)).toBeNull();
    expect(tarEntries(tar.subarray(0, 1024))).toBeNull(); // truncated inside base/big's data
    expect(() => tarWithout(Buffer.from('not a tar at all'.repeat(64)), [])).toThrow('not a tar');
  });
});
