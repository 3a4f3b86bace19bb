import { Comment, Element, Text } from 'domhandler';
import { tagKindOf } from './elements.js';
import type { KindedElement } from './elements.js';

/*
 * domhandler's node classes set their shared fields (parent, prev, next, indices) with class-field
 * initializers in the base class: one function that runs for every kind of node. Once a worker had seen
 * pages of more than one site, V8 stopped inlining that initializer into each constructor and ran it as a
 * megamorphic store site, 15% of the content path's time: the article set ran 7.0 ms a page instead of
 * 5.8 for the rest of the worker's life. These constructors store the same fields in the same order with
 * plain assignments, one constructor per kind (6.0 ms a page in that state), and share domhandler's
 * prototypes, so every library that reads the tree (and `instanceof`) sees ordinary domhandler nodes.
 */

type ElementConstructor = new (name: string, attribs: Record<string, string>) => Element;
type DataConstructor<T> = new (data: string) => T;

const ElementNode = function (this: Element, name: string, attribs: Record<string, string>): void {
  this.parent = null;
  this.prev = null;
  this.next = null;
  this.startIndex = null;
  this.endIndex = null;
  this.children = [];
  this.name = name;
  this.attribs = attribs;
  (this as KindedElement).tagKind = tagKindOf(name);
  (this as KindedElement).concealed = -1;
  (this as KindedElement).measuredBy = null;
  (this as KindedElement).measured = null;
  this.type = (name === 'script' ? 'script' : name === 'style' ? 'style' : 'tag') as Element['type'];
} as unknown as ElementConstructor;
ElementNode.prototype = Element.prototype;

// Text and comments are written out separately on purpose: a shared helper would be one store site for both.
const TextNode = function (this: Text, data: string): void {
  this.parent = null;
  this.prev = null;
  this.next = null;
  this.startIndex = null;
  this.endIndex = null;
  this.data = data;
  (this as { type: Text['type'] }).type = 'text' as Text['type'];
} as unknown as DataConstructor<Text>;
TextNode.prototype = Text.prototype;

const CommentNode = function (this: Comment, data: string): void {
  this.parent = null;
  this.prev = null;
  this.next = null;
  this.startIndex = null;
  this.endIndex = null;
  this.data = data;
  (this as { type: Comment['type'] }).type = 'comment' as Comment['type'];
} as unknown as DataConstructor<Comment>;
CommentNode.prototype = Comment.prototype;

export const newElement = (name: string, attribs: Record<string, string>): Element =>
  new ElementNode(name, attribs);
/** Gives `el` another tag name, with that name's bits (elements.ts); whether it is hidden is asked afresh. */
export function renameElement(el: Element, name: string): void {
  el.name = name;
  (el as KindedElement).tagKind = tagKindOf(name);
  (el as KindedElement).concealed = -1;
}
export const newText = (data: string): Text => new TextNode(data);
export const newComment = (data: string): Comment => new CommentNode(data);
