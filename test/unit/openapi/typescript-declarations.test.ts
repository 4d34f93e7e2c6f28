import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { buildSchemaModel } from '../../../src/openapi/schema-model.js';
import { buildTypeDeclarations } from '../../../src/openapi/typescript-declarations.js';
import { definitionsOf, EVERY_OPTION_SCHEMA } from '../../helpers/openapi-fixtures.js';

/** Type-checks in-memory files (strict); returns the diagnostics as text. */
function typeCheck(relative: Record<string, string>): string[] {
  // Absolute names under a directory that does not exist, so module resolution finds only these.
  const files = Object.fromEntries(
    Object.entries(relative).map(([name, text]) => [`/virtual-rowbase-types/${name}`, text]),
  );
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    types: [],
    skipLibCheck: true,
  };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  host.readFile = (name) => files[name] ?? read(name);
  host.fileExists = (name) => name in files || ts.sys.fileExists(name);
  host.directoryExists = (name) => name.startsWith('/virtual-rowbase-types') || ts.sys.directoryExists(name);
  const getSource = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version) => {
    const text = files[name];
    return text === undefined ? getSource(name, version) : ts.createSourceFile(name, text, version);
  };
  const program = ts.createProgram(Object.keys(files), options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('TypeScript declarations', () => {
  const text = buildTypeDeclarations(buildSchemaModel(definitionsOf(EVERY_OPTION_SCHEMA)), 'demo');

  it('one interface per table and role, then Database mapping each table to them', () => {
    for (const name of [
      'AppUsersRow',
      'AppUsersCreate',
      'AppUsersUpdate',
      'AppUsersRelations',
      'TasksRow',
      'TasksCreate',
      'TasksUpdate',
      'TasksRelations',
    ])
      assert.match(text, new RegExp(`export interface ${name} \\{`));
    assert.match(
      text,
      new RegExp(
        String.raw`export type Database = \{\n` +
          String.raw` {2}app_users: \{ Row: AppUsersRow; Create: AppUsersCreate; Update: AppUsersUpdate; ` +
          String.raw`Relations: AppUsersRelations \};\n` +
          String.raw` {2}tasks: \{ Row: TasksRow; Create: TasksCreate; Update: TasksUpdate; ` +
          String.raw`Relations: TasksRelations \};\n` +
          String.raw`\};`,
      ),
    );
  });

  it('relations: a reference column is one row (many: false), a referencing table(column) a list (many: true)', () => {
    const model = buildSchemaModel(
      definitionsOf([
        ['teams', { columns: [{ name: 'name', type: 'text' }] }],
        [
          'people',
          {
            columns: [
              { name: 'team', type: 'text', references: { table: 'teams', on_delete: 'set_null' } },
              { name: 'mentor', type: 'text', references: { table: 'people', on_delete: 'set_null' } },
            ],
          },
        ],
      ]),
    );
    const related = buildTypeDeclarations(model, 'demo');
    assert.match(
      related,
      new RegExp(
        String.raw`export interface PeopleRelations \{\n` +
          String.raw` {2}team: \{ row: TeamsRow; relations: TeamsRelations; many: false \};\n` +
          String.raw` {2}mentor: \{ row: PeopleRow; relations: PeopleRelations; many: false \};\n` +
          String.raw` {2}"people\(mentor\)": \{ row: PeopleRow; relations: PeopleRelations; many: true \};\n` +
          String.raw`\}`,
      ),
    );
    assert.match(
      related,
      new RegExp(
        String.raw`export interface TeamsRelations \{\n` +
          String.raw` {2}"people\(team\)": \{ row: PeopleRow; relations: PeopleRelations; many: true \};\n\}`,
      ),
    );
    assert.deepEqual(typeCheck({ 'db.ts': related }), []);
  });

  it('enums are unions of literals; nullable columns add null; json is Json; a row has no password', () => {
    assert.match(text, /status: "open" \| "on hold" \| "closed" \| null;/);
    assert.match(text, /title: string;/);
    assert.match(text, /meta: Json;/);
    const row = text.slice(
      text.indexOf('export interface AppUsersRow'),
      text.indexOf('export interface AppUsersCreate'),
    );
    assert.doesNotMatch(row, /password/);
  });

  it('compiles under strict TypeScript, alone and for an empty project', () => {
    assert.deepEqual(typeCheck({ 'db.ts': text }), []);
    const empty = buildTypeDeclarations(buildSchemaModel([]), 'empty');
    assert.match(empty, /export type Database = \{\};/);
    assert.deepEqual(typeCheck({ 'db.ts': empty }), []);
  });

  it('a wrong column name or value type is a compile error', () => {
    const errors = typeCheck({
      'db.ts': text,
      'use.ts':
        "import type { TasksCreate } from './db';\nexport const a: TasksCreate = { titel: 'x', " +
        "started_at: 'x' };\nexport const b: TasksCreate = { title: 1, started_at: 'x' };\n",
    });
    assert.equal(errors.length, 2, errors.join('\n'));
    assert.match(errors[0]!, /titel/);
    assert.match(errors[1]!, /number/);
  });
});
