/** The OpenAPI 3.0 Schema Object, as far as this service uses it (lib/openapi/shape.ts, schemas.ts). */
export interface OpenApiSchema {
  type?: 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object';
  format?: string;
  description?: string;
  enum?: readonly unknown[];
  items?: OpenApiSchema;
  properties?: Record<string, OpenApiSchema>;
  required?: string[];
  additionalProperties?: boolean | OpenApiSchema;
  oneOf?: OpenApiSchema[];
  allOf?: OpenApiSchema[];
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  anyOf?: OpenApiSchema[];
  minItems?: number;
  maxItems?: number;
  default?: unknown;
  example?: unknown;
  $ref?: string;
}
