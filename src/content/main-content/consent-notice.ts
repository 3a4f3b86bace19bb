import type { AnyNode, Element } from '../parse/dom.js';
import { isTag } from '../parse/dom.js';
import { isNeverContent } from '../parse/elements.js';
import { isConcealed, isInvisible } from '../parse/visibility.js';
import { ACCEPT_LABEL } from '../../lib/consent-words.js';

/**
 * Cookie and consent notices left in the page's HTML (shown until a visitor answers them) are never its main
 * content. Found by what makes one, not by vendor: the smallest element around an accepting control (a button
 * or link labelled "Accept", "Allow all", "Got it") whose other text speaks of cookies or consent, with little
 * text and no main, article or h1 inside (an article about cookies with a poll under it has those). The
 * browser engine removes such notices by their fixed position (browser-consent.ts); here, without layout, the
 * topic is narrower: privacy alone is a newsletter form's word as much as a notice's.
 */
export function consentNotices(body: AnyNode): Set<Element> {
  // Most pages never name the topic: a walk that only reads text finds that without measuring anything.
  if (!namesTopic(body)) return new Set();
  const info = new Map<Element, Measured>();
  const controls: Element[] = [];
  // One walk: each element's text length (all of it, and what is shown), whether its text outside controls
  // names the topic, and whether it holds a landmark. Concealed notices are walked too: main content may
  // reveal collapsed blocks, and a notice waiting for its script to show it is still a notice. Linear.
  const walk = (node: AnyNode, inControl: boolean, concealed: boolean): Measured => {
    if (node.type === 'text') {
      const text = node.data.trim().length;
      const topic = text > 0 && !inControl && NOTICE_TOPIC.test(node.data);
      return { text, shown: concealed ? 0 : text, topic, landmark: false };
    }
    const out = { text: 0, shown: 0, topic: false, landmark: false };
    if (isTag(node)) {
      if (isNeverContent(node)) return out;
      const control = isControl(node);
      if (control && !inControl) controls.push(node);
      inControl ||= control;
      concealed ||= isConcealed(node);
      out.landmark = LANDMARKS.has(node.name);
    }
    if ('children' in node)
      for (const child of node.children) {
        const c = walk(child, inControl, concealed);
        out.text += c.text;
        out.shown += c.shown;
        out.topic ||= c.topic;
        out.landmark ||= c.landmark;
      }
    // Only elements whose text names the topic can be a notice: the others are not kept.
    if (out.topic && isTag(node)) info.set(node, out);
    return out;
  };
  const page = walk(body, false, false);
  const notices = new Set<Element>();
  // No text speaks of the topic: no control can be in a notice, and their labels need not be read.
  if (info.size === 0) return notices;
  const seen = new Set<Element>();
  for (const control of controls) {
    const label = labelOf(control);
    if (label.length > MAX_LABEL || !ACCEPT_LABEL.test(label)) continue;
    // The first element up from the control whose text speaks of the topic; each element is looked at once.
    for (let p = control.parent; p && isTag(p) && !seen.has(p); p = p.parent) {
      seen.add(p);
      const at = info.get(p);
      if (!at) continue;
      if (at.text <= MAX_NOTICE_TEXT && !at.landmark) notices.add(p);
      break;
    }
  }
  // A page that shows mostly its notice (the rest is drawn by scripts) keeps it: main content is never empty
  // while the page has text.
  let noticeText = 0;
  for (const notice of notices) noticeText += info.get(notice)!.shown;
  return noticeText * 2 < page.shown ? notices : new Set();
}

/** Whether any text of `node` outside non-content elements names the topic (controls' labels included). */
function namesTopic(node: AnyNode): boolean {
  if (node.type === 'text') return NOTICE_TOPIC.test(node.data);
  if (isTag(node) && isNeverContent(node)) return false;
  if ('children' in node) for (const child of node.children) if (namesTopic(child)) return true;
  return false;
}

/** What the walk learns of an element: its text (all, and shown), and whether it names the topic or holds a landmark. */
interface Measured {
  text: number;
  shown: number;
  topic: boolean;
  landmark: boolean;
}

const NOTICE_TOPIC = /cookie|consent|gdpr|dsgvo|rgpd|datenschutz/i;
const LANDMARKS = new Set(['main', 'article', 'h1', 'body']);
/** A notice says what it is in a paragraph or two; a longer element is a page, or a policy. */
const MAX_NOTICE_TEXT = 3000;
/** An accepting control's label is a word or a few ("Accept all cookies"), not a sentence. */
const MAX_LABEL = 40;

function isControl(el: Element): boolean {
  if (el.name === 'button' || el.name === 'a' || el.attribs.role === 'button') return true;
  return el.name === 'input' && (el.attribs.type === 'button' || el.attribs.type === 'submit');
}

/** What a control says: its text (read no further than a label's length), else its value or aria-label. */
function labelOf(control: Element): string {
  const text = textIn(control).replace(/\s+/g, ' ').trim();
  return text || control.attribs.value || control.attribs['aria-label'] || '';
}

function textIn(node: AnyNode): string {
  if (node.type === 'text') return node.data;
  if (!('children' in node) || (isTag(node) && isInvisible(node))) return '';
  let out = '';
  for (const child of node.children) {
    out += textIn(child);
    if (out.length > MAX_LABEL * 4) break;
  }
  return out;
}
