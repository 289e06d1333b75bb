/**
 * Lit's `html` templates reach the bundle as written: every line of markup keeps its indentation, about a
 * tenth of the page's main chunk before compression. The production build shortens each line break and the
 * indentation after it to the line break alone, inside the literal text of `html` and `svg` templates only
 * (found by parsing the module, so nested templates and `${…}` expressions are told apart exactly). A line
 * break is whitespace as the indentation was: the page renders the same. A template holding `<pre` or
 * `<textarea` is left whole, since there whitespace is text.
 */
import ts from 'typescript';

const TAGS = new Set(['html', 'svg']);
const WHITESPACE_IS_TEXT = /<(?:pre|textarea)\b/i;

/** `code` (a JavaScript or TypeScript module) with the indentation inside its `html`/`svg` templates removed. */
export function minifyLitHtml(code: string, fileName = 'module.ts'): string {
  if (!/\b(?:html|svg)`/.test(code)) return code;
  const source = ts.createSourceFile(fileName, code, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const spans: Array<[number, number]> = [];
  const visit = (node: ts.Node): void => {
    if (ts.isTaggedTemplateExpression(node) && ts.isIdentifier(node.tag) && TAGS.has(node.tag.text)) {
      const template = node.template;
      if (!WHITESPACE_IS_TEXT.test(template.getText(source))) spans.push(...literalSpans(template, source));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  let out = '';
  let at = 0;
  for (const [start, end] of spans.sort((a, b) => a[0] - b[0])) {
    out += code.slice(at, start) + code.slice(start, end).replace(/\n[ \t]+/g, '\n');
    at = end;
  }
  return out + code.slice(at);
}

/** Where the literal text of a template lies: between its backticks, `}` and `${`, never inside an expression. */
function literalSpans(template: ts.TemplateLiteral, source: ts.SourceFile): Array<[number, number]> {
  if (ts.isNoSubstitutionTemplateLiteral(template)) return [[template.getStart(source) + 1, template.end - 1]];
  const spans: Array<[number, number]> = [[template.head.getStart(source) + 1, template.head.end - 2]];
  for (const { literal } of template.templateSpans) {
    spans.push([literal.getStart(source) + 1, literal.end - (ts.isTemplateTail(literal) ? 1 : 2)]);
  }
  return spans;
}
