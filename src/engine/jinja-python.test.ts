import { describe, expect, it } from 'vitest';
import { BoundedTemplate } from './bounded-template.ts';

/** One template rendered here; every expected text is what Python's Jinja2 (as transformers sets it up) renders. */
const render = (source: string, context: Record<string, unknown> = {}) => new BoundedTemplate(source).render(context);

describe('templates render as Python’s Jinja2 renders them (issue 66, item 4)', () => {
  it('keeps what an iteration wrote before continue or break', () => {
    expect(render('{% for x in [1,2,3] %}{{ x }}{% if x == 2 %}{% continue %}{% endif %}!{% endfor %}')).toBe('1!23!');
    expect(render('{% for x in [1,2,3] %}{{ x }}{% if x == 2 %}{% break %}{% endif %},{% endfor %}')).toBe('1,2');
    // The shape that cost a real template its system turn: the turn written, then `continue`.
    const messages = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hi' },
    ];
    expect(
      render("{% for m in messages %}{% if m.role == 'system' %}<sys>{{ m.content }}</sys>{% continue %}{% endif %}<{{ m.role }}>{% endfor %}", {
        messages,
      }),
    ).toBe('<sys>Be brief.</sys><user>');
  });

  it('runs a loop’s else unless an iteration ran to its end, as Jinja2 does', () => {
    expect(render('{% for x in [1] %}{% continue %}{% else %}empty{% endfor %}')).toBe('empty');
    expect(render('{% for x in [1] %}a{% continue %}{% else %}empty{% endfor %}')).toBe('aempty');
    expect(render('{% for x in [1,2] %}{{x}}{% if x==1 %}{% continue %}{% endif %}{% else %}empty{% endfor %}')).toBe('12');
    expect(render('{% for x in [1] %}{% break %}{% else %}empty{% endfor %}')).toBe('empty');
  });

  it('iterates a string’s characters, and an undefined value as nothing', () => {
    expect(render("{% for c in 'ab' %}[{{ c }}]{% endfor %}")).toBe('[a][b]');
    expect(render('{% for x in nothing %}x{% else %}none{% endfor %}')).toBe('none');
  });

  it('takes an undefined value for an empty sequence, and none for nothing to select from', () => {
    expect(
      render(
        "{{ nothing | length }} {{ nothing | selectattr('a') | list }} {{ nothing | join(',') }}|{% if nothing is sequence %}seq{% endif %} {{ none | selectattr('a') | list | length }}",
      ),
    ).toBe('0 [] |seq 0');
  });

  it('writes a mapping or a list through `string` as Python’s str() does', () => {
    expect(render("{{ {'a': 1, 'b': true, 'c': none, 'd': \"it's\", 'e': [1, 'x']} | string }}")).toBe(
      `{'a': 1, 'b': True, 'c': None, 'd': "it's", 'e': [1, 'x']}`,
    );
  });

  it('refuses to add text and a non-text value, as Python does, instead of writing [object Map] into a prompt', () => {
    expect(() => render("{{ 'x' + {} }}")).toThrow('can only concatenate str (not "dict") to str');
    expect(() => render("{{ 'x' + 1 }}")).toThrow('can only concatenate str (not "int") to str');
    expect(render("{{ 'x' + 'y' }}{{ 1 + 2 }}{{ [1] + [2] }}")).toBe('xy3[1, 2]');
  });

  it('escapes for HTML what is added to text marked safe, as markupsafe does', () => {
    expect(render(`{{ "a"|safe + '"b"' }}`)).toBe('a&#34;b&#34;');
    expect(render(`{{ "<a>"|safe + "<b>"|safe }}`)).toBe('<a><b>');
  });
});
