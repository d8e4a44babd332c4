// legwork/max-lines-per-test-function (scripts/lint/test-function-size.mjs): the callback of a grouping call
// is skipped, and nothing else is: every test, hook and helper of 61 lines is reported, counted as the core
// max-lines-per-function counts it.
import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import { Linter, RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import testSizes from './test-function-size.mjs';

RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

const rule = testSizes.rules['max-lines-per-test-function'];
const OPTIONS = { max: 60, skipBlankLines: false, skipComments: false, IIFEs: true };
const options = [{ ...OPTIONS, groups: ['describe', 'suite', 'describeBothDatabases'] }];

/** `n - 2` statement lines, one of them blank and one a comment: the core rule (skipBlankLines and skipComments false) counts both. */
function lines(n) {
  return ['', '// a comment line', ...Array.from({ length: n - 4 }, (_, i) => `expect(${i}).toBe(${i});`)].join('\n');
}
/** An `it` whose callback spans `n` lines, head and closing line included. */
const itOf = (n, name = 't') => `it('${name}', () => {\n${lines(n)}\n});`;
/** A group whose callback is long (it holds a 61-line helper's worth of short tests) but whose tests are short. */
const shortTests = Array.from({ length: 20 }, (_, i) => itOf(4, `t${i}`)).join('\n');
const exceed = (name, lineCount) => ({ messageId: 'exceed', data: { name, lineCount, maxLines: 60 } });

/** A case the rule must pass, named for the test report (the code itself is too long to name it). */
const pass = (name, code) => ({ name, code, options });
/** A case the rule must report, with the expected findings. */
const fail = (name, code, ...errors) => ({ name, code, options, errors });

new RuleTester({ languageOptions: { parser: tseslint.parser } }).run('max-lines-per-test-function', rule, {
  valid: [
    pass('describe with an arrow', `describe('group', () => {\n${shortTests}\n});`),
    pass('describe with a function expression', `describe('group', function () {\n${shortTests}\n});`),
    pass('nested describes', `describe('outer', () => {\n${shortTests}\ndescribe('inner', () => {\n${shortTests}\n});\n});`),
    pass('a test of exactly 60 lines', `describe('edge', () => {\n${itOf(60)}\n});`),
    pass('describe.skip', `describe.skip('group', () => {\n${shortTests}\n});`),
    pass('describe.only', `describe.only('group', () => {\n${shortTests}\n});`),
    pass('describe.each(table)', `describe.each([1, 2])('case %s', (n) => {\n${shortTests}\n});`),
    pass('describe.skip.each(table)', `describe.skip.each([1, 2])('case %s', (n) => {\n${shortTests}\n});`),
    pass('describe.each`table`', `describe.each\`a\n\${1}\`('case $a', ({ a }) => {\n${shortTests}\n});`),
    pass("node:test's suite", `suite('group', () => {\n${shortTests}\n});`),
    pass('a wrapper named in groups', `describeBothDatabases('repo', (getDb, kind) => {\n${shortTests}\n});`),
    pass('an inline conditional of groups', `(process.env.X ? describe : describe.skip)('group', () => {\n${shortTests}\n});`),
    pass(
      'a const bound to a conditional of groups',
      `const onPostgres = process.env.DATABASE_URL ? describe : describe.skip;\nonPostgres('group', () => {\n${shortTests}\n});`,
    ),
    pass(
      'a const behind a type assertion',
      `const whenBrowser = (ok ? describe : describe.skip) as jest.Describe;\nwhenBrowser('group', () => {\n${shortTests}\n});`,
    ),
    pass('a chain of const aliases', `const a = describe;\nconst b = a.skip;\nb('group', () => {\n${shortTests}\n});`),
  ],
  invalid: [
    fail('a test of 61 lines in a describe', `describe('group', () => {\n${itOf(61)}\n});`, exceed('Arrow function', 61)),
    fail('a test of 61 lines at the top', itOf(61), exceed('Arrow function', 61)),
    fail('a test of 62 lines in a wrapper', `describeBothDatabases('repo', (getDb) => {\n${itOf(62)}\n});`, exceed('Arrow function', 62)),
    fail('a hook of 61 lines', `describe('group', () => {\nbeforeAll(async () => {\n${lines(61)}\n});\n});`, exceed('Async arrow function', 61)),
    fail('a helper declaration', `function helper() {\n${lines(61)}\n}`, exceed("Function 'helper'", 61)),
    fail('a helper inside a describe', `describe('group', () => {\nconst step = async () => {\n${lines(61)}\n};\n});`, exceed('Async arrow function', 61)),
    fail('a test in describe.each', `describe.each([1])('case %s', () => {\n${itOf(61)}\n});`, exceed('Arrow function', 61)),
    fail('an ordinary function taking a callback', `const run = (name, body) => body();\nrun('x', () => {\n${lines(61)}\n});`, exceed('Arrow function', 61)),
    fail('a let alias (it may be reassigned)', `let alias = describe;\nalias('x', () => {\n${lines(61)}\n});`, exceed('Arrow function', 61)),
    fail(
      'a conditional with a branch that is not a group',
      `const maybe = ok ? describe : it;\nmaybe('x', () => {\n${lines(61)}\n});`,
      exceed('Arrow function', 61),
    ),
    fail('describe.each given a function', `describe.each(() => {\n${lines(61)}\n});`, exceed('Arrow function', 61)),
    fail('a member that is not a modifier', `describe.concurrent('x', () => {\n${lines(61)}\n});`, exceed('Arrow function', 61)),
    fail('a cycle of aliases', `const a = b, b = a;\na('x', () => {\n${lines(61)}\n});`, exceed('Arrow function', 61)),
    fail('an IIFE', `(() => {\n${lines(61)}\n})();`, exceed('Arrow function', 61)),
    fail('a long test in a long group: the test alone', `describe('group', () => {\n${shortTests}\n${itOf(70)}\n});`, exceed('Arrow function', 70)),
  ],
});

test('outside group callbacks, the findings are the core rule findings', () => {
  const code = [
    `class Fixture {\nmethod() {\n${lines(59)}\n}\nget value() {\n${lines(61)}\n}\n}`,
    `const object = { build() {\n${lines(61)}\n} };`,
    `export function* generator() {\n${lines(70)}\n}`,
    `describe('group', () => {\n${itOf(61)}\n${itOf(59)}\n});`,
  ].join('\n');
  const findings = (rules) =>
    new Linter()
      .verify(code, { plugins: { legwork: testSizes }, languageOptions: { parser: tseslint.parser }, rules })
      .map((m) => [m.ruleId, m.line, m.message]);
  const ours = findings({ 'legwork/max-lines-per-test-function': ['error', OPTIONS] });
  const theirs = findings({ 'max-lines-per-function': ['error', OPTIONS] });
  const group = theirs.find(([, line]) => line === code.split('\n').indexOf("describe('group', () => {") + 1);
  assert.ok(group, 'the core rule reports the group callback');
  assert.equal(ours.length, 4);
  assert.deepEqual(
    ours.map(([, ...rest]) => rest),
    theirs.filter((finding) => finding !== group).map(([, ...rest]) => rest),
  );
});
