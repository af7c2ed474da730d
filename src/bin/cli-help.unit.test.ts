/** Every `--help` of the `sealpost` command marks the options a command cannot run without, and only those. */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { markRequiredOptions } from './cli-help.ts';
import { accountCommand, domainCommand, keyCommand } from './admin-commands.ts';
import { capturedCommand } from './captured-commands.ts';
import { backupCommand, doctorCommand, moveCommand, restoreCommand } from './ops-commands.ts';
import { subscribersCommand } from './subscriber-commands.ts';
import { suppressionCommand } from './suppression-commands.ts';
import { userCommand } from './user-commands.ts';
import { webhookCommand } from './webhook-commands.ts';

/** The entries of a help's option list, each with its wrapped lines joined. */
function optionEntries(help: string): string[] {
  const entries: string[] = [];
  for (const line of help.slice(help.indexOf('Options:')).split('\n').slice(1)) {
    if (/^ {2}-/.test(line)) entries.push(line.trim());
    else if (/^ {3,}\S/.test(line) && entries.length) entries[entries.length - 1] += ` ${line.trim()}`;
    else if (line.trim() === '' || /^\S/.test(line)) break;
  }
  return entries;
}

/** Each command and every command below it. */
const walk = (cmd: Command): Command[] => [cmd, ...cmd.commands.flatMap(walk)];

describe('sealpost --help', () => {
  const commands = [
    accountCommand(),
    domainCommand(),
    keyCommand(),
    capturedCommand(),
    webhookCommand(),
    userCommand(),
    subscribersCommand(),
    backupCommand(),
    restoreCommand(),
    doctorCommand(),
    moveCommand(),
    suppressionCommand(),
  ].flatMap((c) => {
    markRequiredOptions(c);
    return walk(c);
  });

  it('marks each required option "(required)" in its command help, and no optional one', () => {
    let required = 0;
    for (const cmd of commands) {
      const entries = optionEntries(cmd.helpInformation());
      for (const option of cmd.options) {
        const line = entries.find((l) => l.startsWith(option.flags)) ?? '';
        expect(line, `${cmd.name()} ${option.flags}`).not.toBe('');
        if (option.mandatory) required++;
        expect(line.endsWith('(required)'), `${cmd.name()} ${option.flags}`).toBe(option.mandatory);
      }
    }
    expect(required).toBeGreaterThanOrEqual(20);
  });

  it('marks the options of backup, restore and move-to-postgres', () => {
    const entry = (name: string, flags: string) =>
      optionEntries(commands.find((c) => c.name() === name)!.helpInformation()).find((e) =>
        e.startsWith(flags),
      );
    expect(entry('backup', '--out <file>')).toMatch(/\(required\)$/);
    expect(entry('restore', '--from <file>')).toMatch(/\(required\)$/);
    expect(entry('move-to-postgres', '--to <url>')).toMatch(/\(required\)$/);
  });
});
