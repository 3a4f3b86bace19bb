import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { render } from 'dom-serializer';
import { Comment, Element, Text, hasChildren, isComment, isTag, isText } from 'domhandler';
import type { AnyNode } from 'domhandler';
import { parseDocument } from 'htmlparser2';
import { renameElement } from '../../src/content/parse/dom-nodes.js';
import {
  BLOCK_ELEMENTS,
  NEVER_CONTENT,
  isBlockElement,
  isNeverContent,
} from '../../src/content/parse/elements.js';
import { parseHtml } from '../../src/content/parse/parse.js';
import { forgetConcealed, isConcealed } from '../../src/content/parse/visibility.js';
import { DEFAULT_TREE_LIMITS } from '../../src/content/parse/tree-limits.js';

const PAGE =
  '<!doctype html><html lang="en"><head><title>T &amp; t</title><script>var a = 1 < 2;</script>' +
  '<style>p{}</style></head><body><!-- note --><main id="m"><h1>Title</h1><p>One &amp; two ' +
  '<a href="/x">link</a> three.</p><ul><li>a</li><li>b</li></ul></main></body></html>';

function* nodesOf(node: AnyNode): Generator<AnyNode> {
  yield node;
  if (hasChildren(node)) for (const child of node.children) yield* nodesOf(child);
}

describe('tree nodes built by the parser (dom-nodes.ts)', () => {
  test('are domhandler nodes to every reader: instanceof, type guards, aliases, cloning', () => {
    const doc = parseHtml(PAGE);
    let elements = 0;
    for (const node of nodesOf(doc)) {
      if (isTag(node)) {
        elements++;
        assert.ok(node instanceof Element);
        assert.equal(node.tagName, node.name);
        assert.equal(node.nodeType, 1);
        assert.equal(node.type, node.name === 'script' ? 'script' : node.name === 'style' ? 'style' : 'tag');
        assert.equal(node.cloneNode(true).children.length, node.children.length);
      } else if (isText(node)) {
        assert.ok(node instanceof Text);
        assert.equal(node.nodeValue, node.data);
      } else if (isComment(node)) {
        assert.ok(node instanceof Comment);
        assert.equal(node.data, ' note ');
      }
      if (node.parent) assert.ok(node.parent.children.includes(node as never));
      if (node.next) assert.equal(node.next.prev, node);
    }
    assert.ok(elements >= 12);
  });

  test('serialize exactly as the tree domhandler builds itself', () => {
    const ours = parseHtml(PAGE);
    const theirs = parseDocument(PAGE, {
      lowerCaseTags: true,
      lowerCaseAttributeNames: true,
      decodeEntities: true,
    });
    assert.equal(render(ours), render(theirs));
  });

  test('text split by the tokenizer stays one node and counts once against MAX_HTML_NODES', () => {
    const doc = parseHtml('<p>a &amp; b &lt; c</p>', { ...DEFAULT_TREE_LIMITS, maxNodes: 3 });
    const p = [...nodesOf(doc)].find((n) => isTag(n) && n.name === 'p') as Element;
    assert.equal(p.children.length, 1);
    assert.equal((p.children[0] as Text).data, 'a & b < c');
  });

  test("carry their tag's kind, as a name looked up in the sets would answer, after a rename too", () => {
    const doc = parseHtml(
      `${PAGE}<noscript><p>Enable scripts</p></noscript><dialog>d</dialog><span>s</span>`,
    );
    const made = (name: string): Element => new Element(name, {});
    for (const node of nodesOf(doc)) {
      if (!isTag(node)) continue;
      assert.equal(isBlockElement(node), BLOCK_ELEMENTS.has(node.name), node.name);
      assert.equal(isNeverContent(node), NEVER_CONTENT.has(node.name), node.name);
      // An element made by other code (domhandler's own constructor) answers the same from its name.
      assert.equal(isBlockElement(made(node.name)), BLOCK_ELEMENTS.has(node.name), node.name);
      assert.equal(isNeverContent(made(node.name)), NEVER_CONTENT.has(node.name), node.name);
    }
    const noscript = [...nodesOf(doc)].find((n) => isTag(n) && n.name === 'noscript') as Element;
    assert.ok(isNeverContent(noscript) && !isBlockElement(noscript));
    renameElement(noscript, 'div');
    assert.ok(!isNeverContent(noscript) && isBlockElement(noscript));
  });

  test('keep whether their author hid them once asked, until the one step that changes attributes forgets it', () => {
    const doc = parseHtml(
      '<html><body><div style="display:none">a</div><p aria-hidden="true">b</p></body></html>',
    );
    const [div, p] = [...nodesOf(doc)].filter(
      (n): n is Element => isTag(n) && (n.name === 'div' || n.name === 'p'),
    );
    assert.ok(isConcealed(div!) && isConcealed(p!));
    div!.attribs.style = 'color: red';
    assert.ok(isConcealed(div!), 'the answer is kept');
    forgetConcealed(div!);
    assert.ok(!isConcealed(div!));
    // A rename asks afresh: aria-hidden hides an element, never the page's body.
    renameElement(p!, 'body');
    assert.ok(!isConcealed(p!));
    // An element made by other code is asked afresh each time.
    const made = new Element('div', { hidden: '' });
    assert.ok(isConcealed(made));
    delete made.attribs.hidden;
    assert.ok(!isConcealed(made));
  });
});
