/**
 * An accepting control's label, in the languages consent notices are most often written in: what tells a
 * cookie or consent notice from other text about cookies. Shared by the browser engine (which removes notices
 * laid over the page) and main content (which leaves out those still in the HTML).
 */
export const ACCEPT_LABEL =
  /\b(accept|agree|allow|consent|got it|okay|ok|i understand|akzeptieren|zustimmen|einverstanden|accepter|j'accepte|aceptar|acepto|accetta|accetto|aceitar|aceito|akkoord|accepteren|godkänn|acceptera|hyväksy|zgadzam|akceptuj)\b|同意|接受|承認|동의/i;
