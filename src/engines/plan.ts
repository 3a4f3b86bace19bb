import { ServiceUnavailableError, UnsupportedFeatureError } from '../errors.js';

export type EngineChoice = 'auto' | 'http' | 'browser';

/** Browser-only features a request asks for, each named by the request field that asks. */
export interface PageNeeds {
  screenshot: boolean;
  waitFor: boolean;
  waitForSelector: boolean;
  actions: boolean;
  /** The branding format: computed styles, which only a rendered page has. */
  branding?: boolean;
}

export interface EnginePlan {
  engine: 'http' | 'browser';
  /** Why `auto` chose this engine; null when the caller chose explicitly. */
  detectionReason: string | null;
}

function browserFields(needs: PageNeeds): string[] {
  const fields: string[] = [];
  if (needs.screenshot) fields.push('screenshot');
  if (needs.waitFor) fields.push('waitFor');
  if (needs.waitForSelector) fields.push('waitForSelector');
  if (needs.actions) fields.push('actions');
  if (needs.branding) fields.push('branding');
  return fields;
}

/** Chooses the engine for a request. Pure: unit-tested as a table. */
export function planEngine(choice: EngineChoice, needs: PageNeeds, browserAvailable: boolean): EnginePlan {
  const fields = browserFields(needs);
  if (choice === 'http') {
    if (fields.length > 0) {
      throw new UnsupportedFeatureError(
        `${fields.join(', ')} ${fields.length > 1 ? 'need' : 'needs'} the browser engine; engine "http" cannot do it`,
      );
    }
    return { engine: 'http', detectionReason: null };
  }
  if (!browserAvailable && (choice === 'browser' || fields.length > 0)) {
    const why = choice === 'browser' ? 'engine "browser"' : fields.join(', ');
    throw new ServiceUnavailableError(
      `${why} needs the browser engine, which is not available on this server`,
    );
  }
  if (choice === 'browser') return { engine: 'browser', detectionReason: null };
  if (fields.length > 0) {
    return { engine: 'browser', detectionReason: `browser required by ${fields.join(', ')}` };
  }
  return {
    engine: 'http',
    detectionReason: browserAvailable
      ? 'static page: http engine'
      : 'http engine: the browser engine is not available on this server',
  };
}
