/** An Ajv validation error, as Fastify and our own validate() report it. */
export interface ValidationIssue {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

/** '/formats/0' -> 'formats[0]'; '' -> the context ('body'). */
function fieldName(instancePath: string, context: string): string {
  if (instancePath === '') return context;
  return instancePath
    .slice(1)
    .split('/')
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join('')
    .replace(/~1/g, '/')
    .replace(/~0/g, '~');
}

/** One readable sentence naming the field, from the first Ajv error. */
export function describeValidation(issue: ValidationIssue, context: string): string {
  const field = fieldName(issue.instancePath, context);
  const p = issue.params;
  switch (issue.keyword) {
    case 'required':
      return `${field === context ? '' : `${field}: `}missing required field '${String(p.missingProperty)}'`;
    case 'additionalProperties':
      return `unknown field '${String(p.additionalProperty)}'${field === context ? '' : ` in ${field}`}`;
    case 'enum':
      return `${field} must be one of: ${(p.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'type':
      return `${field} must be ${String(p.type)}`;
    case 'const':
      return `${field} must be ${JSON.stringify(p.allowedValue)}`;
    default:
      return `${field} ${issue.message ?? 'is invalid'}`;
  }
}
