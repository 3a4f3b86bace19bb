import { ContentTooLargeError } from '../../errors.js';

/**
 * The bytes one document may unpack to (MAX_DOCUMENT_BYTES), charged by the decoders as they produce output:
 * what a zip entry or a PDF stream actually inflates to, summed over the document, never what a header
 * claims. Charging past the limit throws, so a decoder stops within one chunk of it.
 */
export class ByteBudget {
  private used = 0;

  /** `unpacks` starts the error's sentence: "The Word file unpacks", "The PDF's streams inflate". */
  constructor(
    readonly limit: number,
    private readonly unpacks: string,
  ) {}

  get spent(): number {
    return this.used;
  }

  get remaining(): number {
    return Math.max(0, this.limit - this.used);
  }

  charge(bytes: number): void {
    this.used += bytes;
    if (this.used > this.limit) this.overrun();
  }

  /** For a decoder that stopped itself at `remaining` (zlib's maxOutputLength): the same 422 as charge's. */
  overrun(): never {
    throw new ContentTooLargeError(`${this.unpacks} to more than ${this.limit} bytes (MAX_DOCUMENT_BYTES)`);
  }
}
