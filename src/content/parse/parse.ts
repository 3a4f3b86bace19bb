import { Parser } from 'htmlparser2';
import type { Document, Element } from 'domhandler';
import { DomHandler } from 'domhandler';
import { UnsupportedContentError } from '../../errors.js';
import { flattenShadowRoot, isShadowTemplate } from './shadow-roots.js';
import { mayHoldHiddenPage, revealHiddenPage } from './hidden-page.js';
import { applyStreamedParts, isStreamingId } from './react-streaming.js';
import { repairForParser } from './html-repair.js';
import { FastTokenizer } from './skipping-tokenizer.js';
import { buildTree } from './tree-builder.js';
import { adoptStrayContent } from './stray-content.js';
import { newComment, newElement, newText } from './dom-nodes.js';
import { DEFAULT_TREE_LIMITS } from './tree-limits.js';
import type { TreeLimits } from './tree-limits.js';

/**
 * A tree builder that refuses a page the moment it passes a limit, before the rest is parsed. The check
 * has to happen while building: htmlparser2 keeps its open-element stack with `unshift`, so each open tag
 * costs time proportional to the current depth and a page of 100,000 nested tags takes seconds to parse
 * before any check on the finished tree could run. Stopping at the depth limit keeps a parse linear in its
 * input with a constant factor of at most `maxDepth`.
 */
class BoundedDomHandler extends DomHandler {
  private nodes = 0;
  /** Declarative shadow roots, in document order, rendered in place once the tree is built. */
  readonly shadowRoots: Element[] = [];
  /** `<noscript>` and hidden elements, one of which may be the page waiting for its scripts (hidden-page.ts). */
  readonly hiddenPages: Element[] = [];
  /** React streaming's boundaries, segments and placeholders by id, and the inline scripts after the first segment. */
  readonly streamingIds = new Map<string, Element>();
  readonly streamingScripts: Element[] = [];

  constructor(private readonly limits: TreeLimits) {
    super(undefined, { withStartIndices: false, withEndIndices: false });
  }

  override onopentag(name: string, attribs: Record<string, string>): void {
    this.count();
    // tagStack holds the document itself plus every open element.
    if (this.tagStack.length > this.limits.maxDepth) {
      throw new UnsupportedContentError(
        `The page nests elements deeper than ${this.limits.maxDepth} levels (MAX_HTML_DEPTH)`,
      );
    }
    // domhandler's own onopentag, with a node built by dom-nodes.ts (withStartIndices and xmlMode are off).
    const element = newElement(name, attribs);
    this.addNode(element);
    this.tagStack.push(element);
    if (isShadowTemplate(name, attribs)) this.shadowRoots.push(element);
    else if (mayHoldHiddenPage(name, attribs)) this.hiddenPages.push(element);
    const id = attribs.id;
    if (isStreamingId(id) && !this.streamingIds.has(id!)) this.streamingIds.set(id!, element);
    else if (name === 'script' && this.streamingIds.size > 0 && !attribs.src)
      this.streamingScripts.push(element);
  }

  override ontext(data: string): void {
    const last = this.lastNode;
    if (last?.type === 'text') {
      last.data += data;
      return;
    }
    this.count();
    const node = newText(data);
    this.addNode(node);
    this.lastNode = node;
  }

  override oncomment(data: string): void {
    const last = this.lastNode;
    if (last?.type === 'comment') {
      last.data += data;
      return;
    }
    this.count();
    const node = newComment(data);
    this.addNode(node);
    this.lastNode = node;
  }

  private count(): void {
    if (++this.nodes > this.limits.maxNodes) {
      throw new UnsupportedContentError(
        `The page has more than ${this.limits.maxNodes} nodes (MAX_HTML_NODES)`,
      );
    }
  }
}

/**
 * Parses a page once; every other content step reads this tree and none mutates it. Declarative shadow
 * roots are rendered in place as part of building the tree, as a browser does. Throws
 * UnsupportedContentError naming the limit as soon as the page passes one.
 */
export function parseHtml(html: string, limits: TreeLimits = DEFAULT_TREE_LIMITS): Document {
  const markup = repairForParser(html);
  let handler = new BoundedDomHandler(limits);
  if (!buildTree(markup, handler)) {
    // Markup the tree builder leaves to htmlparser2 (tree-builder.ts): parsed again from the start.
    handler = new BoundedDomHandler(limits);
    const options = { lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true };
    new Parser(handler, { ...options, Tokenizer: FastTokenizer }).end(markup);
  }
  adoptStrayContent(handler.root);
  for (const template of handler.shadowRoots) flattenShadowRoot(template);
  if (handler.streamingScripts.length > 0) applyStreamedParts(handler.streamingIds, handler.streamingScripts);
  revealHiddenPage(handler.root, handler.hiddenPages);
  return handler.root;
}
