import { describe, expect, it } from 'vitest';
import { ensureChromium, type ChromiumHost } from './ensure-chromium.ts';

function host(over: Partial<ChromiumHost> & { files?: Set<string> } = {}): ChromiumHost & { commands: string[][]; lines: string[] } {
  const files = over.files ?? new Set<string>();
  const commands: string[][] = [];
  const lines: string[] = [];
  return {
    executable: (p) => files.has(p),
    uid: () => 0,
    run: (command, args) => {
      commands.push([command, ...args]);
      if (args.includes('chromium')) files.add('/usr/bin/chromium');
    },
    log: (line) => lines.push(line),
    ...over,
    commands,
    lines,
  };
}

describe('ensureChromium', () => {
  it('does nothing when Chromium is there', () => {
    const h = host({ files: new Set(['/usr/bin/chromium']) });
    expect(ensureChromium('/usr/bin/chromium', h)).toBe('/usr/bin/chromium');
    expect(h.commands).toEqual([]);
  });

  it('installs Debian’s chromium with apt-get as root', () => {
    const h = host({ files: new Set(['/usr/bin/apt-get']) });
    expect(ensureChromium('/usr/bin/chromium', h)).toBe('/usr/bin/chromium');
    expect(h.commands.map((c) => c.slice(0, 2).join(' '))).toEqual(['apt-get update', 'apt-get install']);
    expect(h.commands[1]).toContain('chromium');
    expect(h.lines[0]).toMatch(/Installing/);
  });

  it('stops with one line saying what to run when it cannot install', () => {
    expect(() => ensureChromium('/usr/bin/chromium', host({ uid: () => 1000, files: new Set(['/usr/bin/apt-get']) }))).toThrow(
      /^Chromium is not installed at \/usr\/bin\/chromium: run "sudo apt-get install chromium"/,
    );
    expect(() => ensureChromium('/usr/bin/chromium', host({ files: new Set() }))).toThrow(/apt-get install chromium/);
    expect(() => ensureChromium('/opt/chrome/chrome', host({ files: new Set(['/usr/bin/apt-get']) }))).toThrow(/CHROMIUM_PATH/);
  });

  it('says so when apt-get fails', () => {
    const h = host({
      files: new Set(['/usr/bin/apt-get']),
      run: () => {
        throw new Error('E: Unable to locate package chromium');
      },
    });
    expect(() => ensureChromium('/usr/bin/chromium', h)).toThrow(/apt-get install chromium failed: E: Unable to locate package chromium/);
  });
});
