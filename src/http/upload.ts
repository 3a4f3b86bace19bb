import type { FastifyRequest } from 'fastify';
import { BadRequestError } from '../errors.js';
import type { UploadedFile } from '../operations/parse.js';

/** Reads a multipart upload: one `file` part and an optional `options` field holding JSON. */
export async function readUpload(req: FastifyRequest): Promise<{ file: UploadedFile; options: unknown }> {
  if (!req.isMultipart()) throw new BadRequestError('Send multipart/form-data with a `file` part');
  let file: UploadedFile | null = null;
  let options: unknown = {};
  for await (const part of req.parts()) {
    if (part.type === 'file') {
      if (part.fieldname !== 'file')
        throw new BadRequestError(`unknown file part '${part.fieldname}' (send it as 'file')`);
      file = {
        filename: part.filename || 'upload',
        contentType: part.mimetype,
        bytes: await part.toBuffer(),
      };
    } else if (part.fieldname === 'options') {
      try {
        options = JSON.parse(String(part.value));
      } catch {
        throw new BadRequestError('options: not valid JSON');
      }
    } else {
      throw new BadRequestError(`unknown field '${part.fieldname}' (send 'file' and 'options')`);
    }
  }
  if (!file) throw new BadRequestError("missing required field 'file'");
  return { file, options };
}
