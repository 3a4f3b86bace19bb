import type { Page } from 'playwright-core';
import type { Deadline } from '../lib/deadline.js';

/** SPEC 2.7 actions; scroll takes `direction` (down by default) and `amount` px, or a `selector` to bring into view. */
export interface BrowserAction {
  type: 'click' | 'type' | 'wait' | 'waitForSelector' | 'scroll';
  selector?: string;
  text?: string;
  milliseconds?: number;
  direction?: 'up' | 'down';
  amount?: number;
}

/** The fields each action type needs; checked before anything is fetched. */
export function actionProblem(action: BrowserAction): string | null {
  switch (action.type) {
    case 'click':
    case 'waitForSelector':
      return action.selector ? null : `${action.type} needs a selector`;
    case 'type':
      return action.selector && action.text !== undefined ? null : 'type needs a selector and text';
    case 'wait':
      return action.milliseconds !== undefined ? null : 'wait needs milliseconds';
    case 'scroll':
      return null;
  }
}

export async function runAction(page: Page, action: BrowserAction, deadline: Deadline): Promise<void> {
  // Leave a little of the budget so a missing element fails as the action, not as the whole request.
  const timeout = Math.max(1, deadline.remainingMs() - 250);
  switch (action.type) {
    case 'click':
      await page.click(action.selector!, { timeout });
      break;
    case 'type':
      await page.fill(action.selector!, action.text!, { timeout });
      break;
    case 'wait':
      await page.waitForTimeout(Math.min(action.milliseconds!, deadline.remainingMs()));
      break;
    case 'waitForSelector':
      await page.waitForSelector(action.selector!, { timeout });
      break;
    case 'scroll':
      if (action.selector) {
        await page.locator(action.selector).first().scrollIntoViewIfNeeded({ timeout });
      } else {
        const sign = action.direction === 'up' ? -1 : 1;
        await page.mouse.wheel(0, sign * (action.amount ?? 800));
      }
      // Let scroll handlers (infinite lists, lazy images) react.
      await page.waitForTimeout(Math.min(300, deadline.remainingMs()));
      break;
  }
}
