/**
 * A tiny XML well-formedness checker for the report's SVGs (no dependencies, no regular expressions):
 * balanced tags, quoted and unique attributes, known entities, one root element. Returns the tree.
 */
export interface XmlElement {
  name: string;
  attributes: Map<string, string>;
  children: XmlElement[];
  text: string;
}

const ENTITIES = new Set(['amp', 'lt', 'gt', 'quot', 'apos']);

function isNameChar(c: string): boolean {
  const code = c.charCodeAt(0);
  return (
    (code >= 48 && code <= 57) || // 0-9
    (code >= 65 && code <= 90) || // A-Z
    (code >= 97 && code <= 122) || // a-z
    c === '_' ||
    c === ':' ||
    c === '-' ||
    c === '.'
  );
}

function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\n' || c === '\t' || c === '\r';
}

function checkEntities(text: string, where: number): void {
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '<') throw new Error(`raw "<" in text or attribute near offset ${where + i}`);
    if (text[i] !== '&') continue;
    const end = text.indexOf(';', i);
    if (end < 0) throw new Error(`unterminated entity near offset ${where + i}`);
    const name = text.slice(i + 1, end);
    const numeric = name.startsWith('#') && name.length > 1;
    if (!ENTITIES.has(name) && !numeric) throw new Error(`unknown entity &${name}; near offset ${where + i}`);
    i = end;
  }
}

export function parseXml(src: string): XmlElement {
  let i = 0;
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;

  const readName = (): string => {
    const start = i;
    while (i < src.length && isNameChar(src[i] as string)) i++;
    if (i === start) throw new Error(`expected a name at offset ${start}`);
    return src.slice(start, i);
  };
  const skipSpace = () => {
    while (isSpace(src[i])) i++;
  };

  while (i < src.length) {
    if (src.startsWith('<?', i)) {
      if (root !== null) throw new Error(`processing instruction after the root at offset ${i}`);
      const end = src.indexOf('?>', i);
      if (end < 0) throw new Error('unterminated processing instruction');
      i = end + 2;
    } else if (src.startsWith('<!--', i)) {
      const end = src.indexOf('-->', i);
      if (end < 0) throw new Error('unterminated comment');
      i = end + 3;
    } else if (src.startsWith('</', i)) {
      i += 2;
      const name = readName();
      skipSpace();
      if (src[i] !== '>') throw new Error(`expected ">" at offset ${i}`);
      i++;
      const open = stack.pop();
      if (open === undefined || open.name !== name) {
        throw new Error(`closing </${name}> does not match <${open?.name ?? '(none)'}> at offset ${i}`);
      }
    } else if (src[i] === '<') {
      i++;
      const element: XmlElement = { name: readName(), attributes: new Map(), children: [], text: '' };
      let selfClosing = false;
      for (;;) {
        const before = i;
        skipSpace();
        if (src.startsWith('/>', i)) {
          i += 2;
          selfClosing = true;
          break;
        }
        if (src[i] === '>') {
          i++;
          break;
        }
        if (i === before) throw new Error(`expected whitespace before an attribute at offset ${i}`);
        const attr = readName();
        skipSpace();
        if (src[i] !== '=') throw new Error(`expected "=" after ${attr} at offset ${i}`);
        i++;
        skipSpace();
        const quote = src[i];
        if (quote !== '"' && quote !== "'") throw new Error(`unquoted attribute ${attr} at offset ${i}`);
        const end = src.indexOf(quote, i + 1);
        if (end < 0) throw new Error(`unterminated attribute ${attr}`);
        const value = src.slice(i + 1, end);
        checkEntities(value, i + 1);
        if (element.attributes.has(attr)) throw new Error(`duplicate attribute ${attr} at offset ${i}`);
        element.attributes.set(attr, value);
        i = end + 1;
      }
      const parent = stack[stack.length - 1];
      if (parent === undefined) {
        if (root !== null) throw new Error(`second root element <${element.name}> at offset ${i}`);
        root = element;
      } else {
        parent.children.push(element);
      }
      if (!selfClosing) stack.push(element);
    } else {
      const end = src.indexOf('<', i);
      const text = src.slice(i, end < 0 ? src.length : end);
      const parent = stack[stack.length - 1];
      if (parent === undefined) {
        for (const c of text) if (!isSpace(c)) throw new Error(`text outside the root at offset ${i}`);
      } else {
        checkEntities(text, i);
        parent.text += text;
      }
      i = end < 0 ? src.length : end;
    }
  }
  if (stack.length > 0) throw new Error(`unclosed <${(stack[stack.length - 1] as XmlElement).name}>`);
  if (root === null) throw new Error('no root element');
  return root;
}

/** Every element below (and including) `element`, depth first. */
export function descendants(element: XmlElement): XmlElement[] {
  const out: XmlElement[] = [element];
  for (const child of element.children) out.push(...descendants(child));
  return out;
}
