/**
 * The flags each command accepts come from its help text and the settings; every command the
 * main help lists has a help text (else its flags could not be checked); "did you mean" picks
 * the closest flag.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseArgs } from '../../../src/cli/args.js';
import { HELP, helpOf } from '../../../src/cli/help.js';
import { checkFlags, knownFlags } from '../../../src/cli/known-flags.js';
import { SETTINGS } from '../../../src/config/config.js';
import { closestName, editDistance } from '../../../src/lib/edit-distance.js';

const listedCommands = (): string[] => {
  const section = HELP.main.split('Commands:')[1]!.split('\n\n')[0]!;
  return [
    ...new Set(
      section
        .split('\n')
        .map((line) => line.trim().split(/\s+/)[0]!)
        .filter((word) => /^[a-z]+$/.test(word)),
    ),
  ];
};

describe('known flags', () => {
  it('every command listed in rowbase --help has a help text, so its flags are checked', () => {
    const commands = listedCommands();
    assert.ok(commands.includes('serve') && commands.includes('import'), commands.join(','));
    for (const command of commands)
      assert.ok(helpOf(command), `rowbase ${command} has no help text in src/cli/help.ts`);
  });

  it('every setting flag is known to every command (a setting added to SETTINGS needs no second list)', () => {
    for (const command of [...listedCommands(), undefined]) {
      for (const setting of SETTINGS) assert.ok(knownFlags(command).has(setting.flag), `${command}: ${setting.flag}`);
    }
  });

  const table: { name: string; argv: string[]; expect: RegExp | undefined }[] = [
    {
      name: 'documented flags pass',
      argv: ['schema', 'apply', '--project', 'p', 'f.json', '--dry-run', '--allow-destructive', '--json'],
      expect: undefined,
    },
    { name: 'a typo names the closest flag', argv: ['serve', '--prot', '1'], expect: /Did you mean --port\?/ },
    {
      name: 'a transposition counts as one edit',
      argv: ['projects', 'create', '--nmae', 'x'],
      expect: /Did you mean --name\?/,
    },
    {
      name: 'a flag of another command is refused',
      argv: ['projects', 'list', '--dry-run'],
      expect: /unknown flag --dry-run for rowbase projects/,
    },
    { name: 'an unknown command is left to the dispatcher', argv: ['frobnicate', '--whatever'], expect: undefined },
    { name: 'a missing value is refused after the names', argv: ['serve', '--port'], expect: /--port needs a value/ },
  ];
  for (const scenario of table) {
    it(scenario.name, () => {
      const problem = checkFlags(parseArgs(scenario.argv).positionals[0], parseArgs(scenario.argv));
      if (scenario.expect === undefined) assert.equal(problem, undefined);
      else assert.match(`${problem?.message} ${problem?.suggestion}`, scenario.expect);
    });
  }

  it('edit distance: insertions, deletions, substitutions and neighbour swaps cost 1', () => {
    assert.equal(editDistance('prot', 'port'), 1);
    assert.equal(editDistance('port', 'port'), 0);
    assert.equal(editDistance('', 'abc'), 3);
    assert.equal(editDistance('data-dri', 'data-dir'), 1);
    assert.equal(editDistance('kitten', 'sitting'), 3);
    assert.equal(closestName('colour', ['color', 'port']), 'color');
    assert.equal(closestName('xyz', ['port', 'host']), undefined);
  });
});
