/**
 * A live viewer's input (the web app's interactive live view) as the CDP commands it may become: only
 * `Input.dispatchMouseEvent` and `Input.dispatchKeyEvent`, with every field checked and bounded. The viewer
 * sends positions as fractions of the frame it shows (0..1), so the mapping to the page's CSS pixels uses the
 * last frame's size and nothing the viewer claims.
 */

/** What one viewer message becomes: a CDP method of the Input domain and its parameters. */
export interface InputCommand {
  method: 'Input.dispatchMouseEvent' | 'Input.dispatchKeyEvent';
  params: Record<string, unknown>;
}

/** The page's size in CSS pixels, from the last screencast frame's metadata. */
export interface FrameSize {
  deviceWidth: number;
  deviceHeight: number;
}

/** Largest viewer message, in bytes: input events are tiny, anything larger ends the viewer. */
export const MAX_INPUT_BYTES = 1024;

const MOUSE_TYPES = new Set(['mousePressed', 'mouseReleased', 'mouseMoved']);
const BUTTONS = new Set(['none', 'left', 'middle', 'right']);
const KEY_TYPES = new Set(['keyDown', 'keyUp']);
const MAX_WHEEL = 10_000;

/** Windows virtual key codes of the keys Chromium acts on by code (editing, moving, submitting). */
const KEY_CODES: Record<string, number> = {
  Backspace: 8,
  Tab: 9,
  Enter: 13,
  Shift: 16,
  Control: 17,
  Alt: 18,
  Escape: 27,
  ' ': 32,
  PageUp: 33,
  PageDown: 34,
  End: 35,
  Home: 36,
  ArrowLeft: 37,
  ArrowUp: 38,
  ArrowRight: 39,
  ArrowDown: 40,
  Delete: 46,
  Meta: 91,
};

const fraction = (v: unknown): number | null =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 1 ? v : null;
const modifiersOf = (v: unknown): number =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 15 ? v : 0;
const bounded = (v: unknown): number =>
  typeof v === 'number' && Number.isFinite(v) ? Math.max(-MAX_WHEEL, Math.min(MAX_WHEEL, v)) : 0;
const shortText = (v: unknown, max: number): string | null =>
  typeof v === 'string' && v.length > 0 && v.length <= max ? v : null;

function keyCode(key: string): number {
  if (key in KEY_CODES) return KEY_CODES[key]!;
  if (/^[a-z0-9]$/i.test(key)) return key.toUpperCase().charCodeAt(0);
  return 0;
}

/**
 * The CDP command for one viewer message, or null for anything that is not a well-formed mouse, wheel or key
 * event (dropped). Messages: `{t: 'mouse', type, x, y, button, clickCount, modifiers}`,
 * `{t: 'wheel', x, y, deltaX, deltaY, modifiers}`, `{t: 'key', type, key, code, modifiers}`.
 */
export function toInputCommand(message: unknown, frame: FrameSize): InputCommand | null {
  if (message === null || typeof message !== 'object') return null;
  const m = message as Record<string, unknown>;
  const modifiers = modifiersOf(m.modifiers);
  if (m.t === 'mouse' || m.t === 'wheel') {
    const fx = fraction(m.x);
    const fy = fraction(m.y);
    if (fx === null || fy === null) return null;
    const at = { x: Math.round(fx * frame.deviceWidth), y: Math.round(fy * frame.deviceHeight), modifiers };
    if (m.t === 'wheel') {
      const params = { type: 'mouseWheel', ...at, deltaX: bounded(m.deltaX), deltaY: bounded(m.deltaY) };
      return { method: 'Input.dispatchMouseEvent', params };
    }
    if (typeof m.type !== 'string' || !MOUSE_TYPES.has(m.type)) return null;
    const button = typeof m.button === 'string' && BUTTONS.has(m.button) ? m.button : 'none';
    const clickCount =
      typeof m.clickCount === 'number' && Number.isInteger(m.clickCount)
        ? Math.max(0, Math.min(3, m.clickCount))
        : 0;
    return { method: 'Input.dispatchMouseEvent', params: { type: m.type, ...at, button, clickCount } };
  }
  if (m.t === 'key') {
    const key = shortText(m.key, 32);
    if (key === null || typeof m.type !== 'string' || !KEY_TYPES.has(m.type)) return null;
    const code = shortText(m.code, 32) ?? '';
    // A printable key types its character unless Control, Alt or Meta is held; Enter types a return.
    const chord = (modifiers & 7) !== 0;
    const text = m.type === 'keyUp' || chord ? '' : key.length === 1 ? key : key === 'Enter' ? '\r' : '';
    const type = m.type === 'keyUp' ? 'keyUp' : text ? 'keyDown' : 'rawKeyDown';
    const params: Record<string, unknown> = {
      type,
      key,
      code,
      modifiers,
      windowsVirtualKeyCode: keyCode(key),
    };
    if (text) Object.assign(params, { text, unmodifiedText: text });
    return { method: 'Input.dispatchKeyEvent', params };
  }
  return null;
}
